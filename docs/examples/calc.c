/* calc: the demo program. It generates random arithmetic expressions,
 * parses them, evaluates them, simplifies them, prints them back and checks
 * that the printed form evaluates to the same value, on one or more threads.
 *
 * Nothing here knows about XRay: build it with -fxray-instrument, link the
 * runtime, and choose a mode with XRAY_OPTIONS (see docs/examples/demo.sh).
 *
 *   calc [expressions-per-thread [threads]]     defaults: 3000 2
 *
 * With one thread the work runs on the main thread.
 *
 * Grammar:  expr    := sum
 *           sum     := product (('+' | '-') product)*
 *           product := power (('*' | '/' | '%') power)*
 *           power   := unary ('^' power)?
 *           unary   := '-' unary | primary
 *           primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
 * Names: variables x, y, z; functions min, max, gcd, fib, abs.
 * Arithmetic is on 64-bit integers and wraps; x / 0 and x % 0 are 0. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_NODES = 512, MAX_TEXT = 2048, MAX_ARGS = 4, MAX_THREADS = 16 };

/* ---- syntax tree, in a per-expression arena ----------------------------- */

enum node_kind { N_NUMBER, N_VAR, N_NEG, N_BINARY, N_CALL };

struct node {
  enum node_kind kind;
  char op;                 /* N_BINARY: + - * / % ^ */
  int64_t value;           /* N_NUMBER */
  int var;                 /* N_VAR: 0 x, 1 y, 2 z */
  int function;            /* N_CALL: index into builtin_names */
  int argc;                /* N_CALL */
  struct node *kids[MAX_ARGS];
};

struct arena {
  struct node nodes[MAX_NODES];
  int used;
};

static const char *const builtin_names[] = {"min", "max", "gcd", "fib", "abs"};
static const int builtin_arity[] = {2, 2, 2, 1, 1};
enum { BUILTINS = sizeof(builtin_names) / sizeof(builtin_names[0]) };

struct node *node_new(struct arena *a, enum node_kind kind) {
  if (a->used == MAX_NODES)
    return NULL;
  struct node *n = &a->nodes[a->used++];
  memset(n, 0, sizeof(*n));
  n->kind = kind;
  return n;
}

struct node *node_number(struct arena *a, int64_t value) {
  struct node *n = node_new(a, N_NUMBER);
  if (n)
    n->value = value;
  return n;
}

struct node *node_binary(struct arena *a, char op, struct node *l, struct node *r) {
  struct node *n = node_new(a, N_BINARY);
  if (n) {
    n->op = op;
    n->kids[0] = l;
    n->kids[1] = r;
  }
  return n;
}

/* ---- lexer ---------------------------------------------------------------- */

enum token_kind { T_END, T_NUMBER, T_NAME, T_PUNCT, T_ERROR };

struct lexer {
  const char *text;
  size_t pos;
  enum token_kind kind;
  int64_t number;
  char name[16];
  char punct;
};

int is_digit(char c) { return c >= '0' && c <= '9'; }
int is_name_char(char c) { return (c >= 'a' && c <= 'z') || c == '_'; }

void skip_space(struct lexer *lx) {
  while (lx->text[lx->pos] == ' ')
    lx->pos++;
}

void lex_number(struct lexer *lx) {
  uint64_t v = 0;
  while (is_digit(lx->text[lx->pos]))
    v = v * 10 + (uint64_t)(lx->text[lx->pos++] - '0');
  lx->kind = T_NUMBER;
  lx->number = (int64_t)v;
}

void lex_name(struct lexer *lx) {
  size_t n = 0;
  while (is_name_char(lx->text[lx->pos])) {
    if (n + 1 < sizeof(lx->name))
      lx->name[n++] = lx->text[lx->pos];
    lx->pos++;
  }
  lx->name[n] = '\0';
  lx->kind = T_NAME;
}

void next_token(struct lexer *lx) {
  skip_space(lx);
  char c = lx->text[lx->pos];
  if (c == '\0')
    lx->kind = T_END;
  else if (is_digit(c))
    lex_number(lx);
  else if (is_name_char(c))
    lex_name(lx);
  else if (strchr("+-*/%^(),", c)) {
    lx->kind = T_PUNCT;
    lx->punct = c;
    lx->pos++;
  } else
    lx->kind = T_ERROR;
}

int at_punct(const struct lexer *lx, char c) {
  return lx->kind == T_PUNCT && lx->punct == c;
}

/* ---- parser (recursive descent; NULL on any error) ------------------------ */

struct parser {
  struct lexer lx;
  struct arena *arena;
};

struct node *parse_sum(struct parser *p);

int expect(struct parser *p, char c) {
  if (!at_punct(&p->lx, c))
    return 0;
  next_token(&p->lx);
  return 1;
}

int lookup_builtin(const char *name) {
  for (int i = 0; i < BUILTINS; i++)
    if (strcmp(builtin_names[i], name) == 0)
      return i;
  return -1;
}

struct node *parse_call(struct parser *p, int function) {
  struct node *n = node_new(p->arena, N_CALL);
  if (!n || !expect(p, '('))
    return NULL;
  n->function = function;
  do {
    if (n->argc == MAX_ARGS)
      return NULL;
    n->kids[n->argc] = parse_sum(p);
    if (!n->kids[n->argc++])
      return NULL;
  } while (expect(p, ','));
  if (n->argc != builtin_arity[function] || !expect(p, ')'))
    return NULL;
  return n;
}

struct node *parse_name(struct parser *p) {
  char name[sizeof(p->lx.name)];
  memcpy(name, p->lx.name, sizeof(name));
  next_token(&p->lx);
  if (name[0] != '\0' && name[1] == '\0' && name[0] >= 'x' && name[0] <= 'z') {
    struct node *n = node_new(p->arena, N_VAR);
    if (n)
      n->var = name[0] - 'x';
    return n;
  }
  int function = lookup_builtin(name);
  return function < 0 ? NULL : parse_call(p, function);
}

struct node *parse_primary(struct parser *p) {
  if (p->lx.kind == T_NUMBER) {
    struct node *n = node_number(p->arena, p->lx.number);
    next_token(&p->lx);
    return n;
  }
  if (p->lx.kind == T_NAME)
    return parse_name(p);
  if (expect(p, '(')) {
    struct node *n = parse_sum(p);
    return n && expect(p, ')') ? n : NULL;
  }
  return NULL;
}

struct node *parse_unary(struct parser *p) {
  if (expect(p, '-')) {
    struct node *operand = parse_unary(p);
    struct node *n = operand ? node_new(p->arena, N_NEG) : NULL;
    if (n)
      n->kids[0] = operand;
    return n;
  }
  return parse_primary(p);
}

struct node *parse_power(struct parser *p) {
  struct node *base = parse_unary(p);
  if (!base || !expect(p, '^'))
    return base;
  struct node *exponent = parse_power(p); /* right associative */
  return exponent ? node_binary(p->arena, '^', base, exponent) : NULL;
}

struct node *parse_product(struct parser *p) {
  struct node *left = parse_power(p);
  while (left && (at_punct(&p->lx, '*') || at_punct(&p->lx, '/') ||
                  at_punct(&p->lx, '%'))) {
    char op = p->lx.punct;
    next_token(&p->lx);
    struct node *right = parse_power(p);
    left = right ? node_binary(p->arena, op, left, right) : NULL;
  }
  return left;
}

struct node *parse_sum(struct parser *p) {
  struct node *left = parse_product(p);
  while (left && (at_punct(&p->lx, '+') || at_punct(&p->lx, '-'))) {
    char op = p->lx.punct;
    next_token(&p->lx);
    struct node *right = parse_product(p);
    left = right ? node_binary(p->arena, op, left, right) : NULL;
  }
  return left;
}

struct node *parse(struct arena *arena, const char *text) {
  struct parser p = {.lx = {.text = text}, .arena = arena};
  arena->used = 0;
  next_token(&p.lx);
  struct node *n = parse_sum(&p);
  return n && p.lx.kind == T_END ? n : NULL;
}

/* ---- evaluation (wrapping 64-bit arithmetic) ------------------------------ */

int64_t wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
int64_t wrap_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
int64_t wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

int64_t safe_div(int64_t a, int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1))
    return 0;
  return a / b;
}

int64_t safe_mod(int64_t a, int64_t b) {
  if (b == 0 || b == -1)
    return 0;
  return a % b;
}

int64_t int_pow(int64_t base, int64_t exponent) {
  int64_t result = 1;
  if (exponent < 0)
    return 0;
  for (int64_t e = exponent & 63; e > 0; e >>= 1) {
    if (e & 1)
      result = wrap_mul(result, base);
    base = wrap_mul(base, base);
  }
  return result;
}

int64_t builtin_gcd(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? 0 - (uint64_t)a : (uint64_t)a;
  uint64_t y = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
  while (y != 0) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return (int64_t)x;
}

/* Deliberately recursive: it gives the traces deep, repetitive call stacks. */
int64_t builtin_fib(int64_t n) {
  if (n < 2)
    return n < 0 ? 0 : n;
  return wrap_add(builtin_fib(n - 1), builtin_fib(n - 2));
}

int64_t eval(const struct node *n, const int64_t vars[3]);

int64_t eval_call(const struct node *n, const int64_t vars[3]) {
  int64_t a = eval(n->kids[0], vars);
  int64_t b = n->argc > 1 ? eval(n->kids[1], vars) : 0;
  switch (n->function) {
  case 0: return a < b ? a : b;
  case 1: return a > b ? a : b;
  case 2: return builtin_gcd(a, b);
  case 3: return builtin_fib(a & 15); /* keep fib cheap enough */
  default: return a < 0 ? wrap_sub(0, a) : a;
  }
}

int64_t eval_binary(const struct node *n, const int64_t vars[3]) {
  int64_t a = eval(n->kids[0], vars), b = eval(n->kids[1], vars);
  switch (n->op) {
  case '+': return wrap_add(a, b);
  case '-': return wrap_sub(a, b);
  case '*': return wrap_mul(a, b);
  case '/': return safe_div(a, b);
  case '%': return safe_mod(a, b);
  default: return int_pow(a, b);
  }
}

int64_t eval(const struct node *n, const int64_t vars[3]) {
  switch (n->kind) {
  case N_NUMBER: return n->value;
  case N_VAR: return vars[n->var];
  case N_NEG: return wrap_sub(0, eval(n->kids[0], vars));
  case N_BINARY: return eval_binary(n, vars);
  default: return eval_call(n, vars);
  }
}

/* ---- simplification: fold constants, drop identities ---------------------- */

int is_number(const struct node *n, int64_t value) {
  return n->kind == N_NUMBER && n->value == value;
}

struct node *simplify(struct arena *a, struct node *n);

struct node *simplify_binary(struct arena *a, struct node *n) {
  struct node *l = simplify(a, n->kids[0]), *r = simplify(a, n->kids[1]);
  if (l->kind == N_NUMBER && r->kind == N_NUMBER) {
    n->kids[0] = l;
    n->kids[1] = r;
    struct node *folded = node_number(a, eval_binary(n, NULL));
    return folded ? folded : n;
  }
  if ((n->op == '+' && is_number(l, 0)) || (n->op == '*' && is_number(l, 1)))
    return r;
  if ((n->op == '+' || n->op == '-') && is_number(r, 0))
    return l;
  if ((n->op == '*' || n->op == '/' || n->op == '^') && is_number(r, 1))
    return l;
  n->kids[0] = l;
  n->kids[1] = r;
  return n;
}

struct node *simplify(struct arena *a, struct node *n) {
  switch (n->kind) {
  case N_BINARY:
    return simplify_binary(a, n);
  case N_NEG:
    n->kids[0] = simplify(a, n->kids[0]);
    if (n->kids[0]->kind == N_NUMBER) {
      struct node *folded = node_number(a, wrap_sub(0, n->kids[0]->value));
      return folded ? folded : n;
    }
    return n;
  case N_CALL:
    for (int i = 0; i < n->argc; i++)
      n->kids[i] = simplify(a, n->kids[i]);
    return n;
  default:
    return n;
  }
}

/* ---- printing ------------------------------------------------------------- */

struct text {
  char buf[MAX_TEXT];
  size_t len;
  int overflow;
};

void text_put(struct text *t, const char *s) {
  size_t n = strlen(s);
  if (t->len + n >= sizeof(t->buf)) {
    t->overflow = 1;
    return;
  }
  memcpy(t->buf + t->len, s, n + 1);
  t->len += n;
}

void text_put_int(struct text *t, int64_t v) {
  char digits[24];
  snprintf(digits, sizeof(digits), "%lld", (long long)v);
  text_put(t, digits);
}

void print_node(struct text *t, const struct node *n);

/* Fully parenthesised, so precedence never needs a second thought. */
void print_binary(struct text *t, const struct node *n) {
  char op[2] = {n->op, '\0'};
  text_put(t, "(");
  print_node(t, n->kids[0]);
  text_put(t, op);
  print_node(t, n->kids[1]);
  text_put(t, ")");
}

void print_call(struct text *t, const struct node *n) {
  text_put(t, builtin_names[n->function]);
  text_put(t, "(");
  for (int i = 0; i < n->argc; i++) {
    if (i > 0)
      text_put(t, ",");
    print_node(t, n->kids[i]);
  }
  text_put(t, ")");
}

void print_node(struct text *t, const struct node *n) {
  static const char *const var_names[] = {"x", "y", "z"};
  switch (n->kind) {
  case N_NUMBER:
    /* a negative literal prints as (0-5): the grammar has no negative numbers */
    if (n->value < 0) {
      text_put(t, "(0-");
      text_put_int(t, n->value == INT64_MIN ? INT64_MAX : -n->value);
      text_put(t, n->value == INT64_MIN ? "-1)" : ")");
    } else
      text_put_int(t, n->value);
    break;
  case N_VAR: text_put(t, var_names[n->var]); break;
  case N_NEG: text_put(t, "(-"); print_node(t, n->kids[0]); text_put(t, ")"); break;
  case N_BINARY: print_binary(t, n); break;
  default: print_call(t, n); break;
  }
}

/* ---- random expressions --------------------------------------------------- */

uint64_t rng_next(uint64_t *state) { /* xorshift64 */
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *state = x;
}

void gen_expr(struct text *t, uint64_t *rng, int depth);

void gen_atom(struct text *t, uint64_t *rng, int depth) {
  unsigned pick = (unsigned)(rng_next(rng) % 10);
  if (depth <= 0 || pick < 4) {
    text_put_int(t, (int64_t)(rng_next(rng) % 100));
  } else if (pick < 6) {
    static const char *const vars[] = {"x", "y", "z"};
    text_put(t, vars[rng_next(rng) % 3]);
  } else if (pick < 8) {
    int f = (int)(rng_next(rng) % BUILTINS);
    text_put(t, builtin_names[f]);
    text_put(t, "(");
    for (int i = 0; i < builtin_arity[f]; i++) {
      if (i > 0)
        text_put(t, ", ");
      gen_expr(t, rng, depth - 1);
    }
    text_put(t, ")");
  } else {
    text_put(t, pick == 8 ? "-(" : "(");
    gen_expr(t, rng, depth - 1);
    text_put(t, ")");
  }
}

void gen_expr(struct text *t, uint64_t *rng, int depth) {
  static const char ops[] = "+-*/%^+*";
  gen_atom(t, rng, depth);
  int terms = (int)(rng_next(rng) % 3);
  for (int i = 0; i < terms; i++) {
    char op[4] = {' ', ops[rng_next(rng) % 8], ' ', '\0'};
    text_put(t, op);
    gen_atom(t, rng, depth - 1);
  }
}

/* ---- one expression, end to end ------------------------------------------- */

struct worker {
  int id;
  int count;
  uint64_t checksum;
  int checked;
  int mismatches;
};

/* Parse, evaluate at three points, simplify, print, re-parse and compare. */
int check_one(struct worker *w, uint64_t *rng, struct arena *a, struct arena *b) {
  struct text source = {0}, printed = {0};
  gen_expr(&source, rng, 4);
  struct node *tree = parse(a, source.buf);
  if (!tree || source.overflow)
    return 0;
  int64_t vars[3][3] = {{1, 2, 3}, {-7, 11, 0}, {40, -3, 9}};
  int64_t before[3];
  for (int i = 0; i < 3; i++)
    before[i] = eval(tree, vars[i]);
  print_node(&printed, simplify(a, tree));
  struct node *again = parse(b, printed.buf);
  if (!again || printed.overflow)
    return 0;
  w->checked++;
  for (int i = 0; i < 3; i++) {
    int64_t after = eval(again, vars[i]);
    if (after != before[i]) {
      w->mismatches++;
      fprintf(stderr, "calc: mismatch: %s -> %s\n", source.buf, printed.buf);
      return 1;
    }
    w->checksum = w->checksum * 31 + (uint64_t)after;
  }
  return 1;
}

void *run_worker(void *arg) {
  struct worker *w = arg;
  static __thread struct arena first, second; /* per thread, off the stack */
  uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)(w->id + 1);
  for (int i = 0; i < w->count; i++)
    check_one(w, &rng, &first, &second);
  return NULL;
}

int main(int argc, char **argv) {
  int count = argc > 1 ? atoi(argv[1]) : 3000;
  int nthreads = argc > 2 ? atoi(argv[2]) : 2;
  if (count <= 0 || nthreads <= 0 || nthreads > MAX_THREADS) {
    fprintf(stderr, "usage: %s [expressions-per-thread [threads 1..%d]]\n",
            argv[0], MAX_THREADS);
    return 2;
  }
  struct worker workers[MAX_THREADS];
  pthread_t threads[MAX_THREADS];
  for (int i = 0; i < nthreads; i++)
    workers[i] = (struct worker){.id = i, .count = count};
  if (nthreads == 1) {
    run_worker(&workers[0]);
  } else {
    for (int i = 0; i < nthreads; i++)
      if (pthread_create(&threads[i], NULL, run_worker, &workers[i]) != 0) {
        fprintf(stderr, "calc: cannot start a thread\n");
        return 1;
      }
    for (int i = 0; i < nthreads; i++)
      pthread_join(threads[i], NULL);
  }
  uint64_t checksum = 0;
  int checked = 0, mismatches = 0;
  for (int i = 0; i < nthreads; i++) {
    checksum ^= workers[i].checksum;
    checked += workers[i].checked;
    mismatches += workers[i].mismatches;
  }
  printf("calc: %d expressions checked on %d thread%s, %d mismatches, "
         "checksum %016llx\n", checked, nthreads, nthreads == 1 ? "" : "s",
         mismatches, (unsigned long long)checksum);
  return mismatches == 0 ? 0 : 1;
}
