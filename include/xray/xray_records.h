/* Record layouts of XRay log files (basic mode "naive" log and the common
 * 32-byte file header), as llvm-xray reads them.
 *
 * Drop-in compatible with compiler-rt's <xray/xray_records.h>: in C++ the
 * types live in namespace __xray; in C they are plain tagged structs.
 * SPDX-License-Identifier: MIT */
#ifndef XRAY_XRAY_RECORDS_H
#define XRAY_XRAY_RECORDS_H

#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
#define XRAY_RECORDS_INIT(v) = v
#define XRAY_RECORDS_ALIGNAS(n) alignas(n)
#define XRAY_RECORDS_BOOL bool
namespace __xray {
#else
#define XRAY_RECORDS_INIT(v)
#define XRAY_RECORDS_ALIGNAS(n) _Alignas(n)
#define XRAY_RECORDS_BOOL _Bool
#endif

/* File types in XRayFileHeader.Type. */
enum FileTypes { NAIVE_LOG = 0, FDR_LOG = 1 };

/* FDR files keep the per-thread buffer size in the header's free-form bytes. */
struct __attribute__((aligned(16))) FdrAdditionalHeaderData {
  uint64_t ThreadBufferSize;
};

/* The 32-byte header that starts basic and FDR files. */
struct __attribute__((aligned(32), packed)) XRayFileHeader {
  uint16_t Version XRAY_RECORDS_INIT(0); /* basic: 3, FDR: 5 (or 1) */
  uint16_t Type XRAY_RECORDS_INIT(0);    /* enum FileTypes */
  XRAY_RECORDS_BOOL ConstantTSC : 1;     /* bit 0 of byte 4 */
  XRAY_RECORDS_BOOL NonstopTSC : 1;      /* bit 1 of byte 4 */
  XRAY_RECORDS_ALIGNAS(8) uint64_t CycleFrequency XRAY_RECORDS_INIT(0);
  union {
    char FreeForm[16];
    struct timespec TS;
    struct FdrAdditionalHeaderData FdrData;
  };
};

/* Discriminant of the 32-byte records of a basic log. */
enum RecordTypes { NORMAL = 0, ARG_PAYLOAD = 1 };

/* One function event of a basic log. */
struct __attribute__((aligned(32), packed)) XRayRecord {
  uint16_t RecordType XRAY_RECORDS_INIT(0); /* NORMAL */
  uint8_t CPU XRAY_RECORDS_INIT(0);         /* low 8 bits of the CPU id */
  uint8_t Type XRAY_RECORDS_INIT(0); /* 0 enter, 1 exit, 2 tail, 3 enter-arg */
  int32_t FuncId XRAY_RECORDS_INIT(0);
  uint64_t TSC XRAY_RECORDS_INIT(0);
  uint32_t TId XRAY_RECORDS_INIT(0);
  uint32_t PId XRAY_RECORDS_INIT(0);
  char Buffer[8]
#ifdef __cplusplus
      = {}
#endif
  ;
};

/* The argument of the enter-arg record just before it. */
struct __attribute__((aligned(32), packed)) XRayArgPayload {
  uint16_t RecordType XRAY_RECORDS_INIT(1); /* ARG_PAYLOAD */
  uint8_t Padding[2]
#ifdef __cplusplus
      = {}
#endif
  ;
  int32_t FuncId XRAY_RECORDS_INIT(0);
  uint32_t TId XRAY_RECORDS_INIT(0);
  uint32_t PId XRAY_RECORDS_INIT(0);
  uint64_t Arg XRAY_RECORDS_INIT(0);
  uint8_t TailPadding[8]
#ifdef __cplusplus
      = {}
#endif
  ;
};

#ifdef __cplusplus
static_assert(sizeof(XRayFileHeader) == 32, "XRayFileHeader is 32 bytes");
static_assert(sizeof(XRayRecord) == 32, "XRayRecord is 32 bytes");
static_assert(sizeof(XRayArgPayload) == 32, "XRayArgPayload is 32 bytes");
} /* namespace __xray */
#else
_Static_assert(sizeof(struct XRayFileHeader) == 32, "XRayFileHeader is 32 bytes");
_Static_assert(sizeof(struct XRayRecord) == 32, "XRayRecord is 32 bytes");
_Static_assert(sizeof(struct XRayArgPayload) == 32, "XRayArgPayload is 32 bytes");
#endif

#undef XRAY_RECORDS_INIT
#undef XRAY_RECORDS_ALIGNAS
#undef XRAY_RECORDS_BOOL

#endif /* XRAY_XRAY_RECORDS_H */
