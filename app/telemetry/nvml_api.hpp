#pragma once
// The few NVML types, constants and function signatures vsa-bench calls, declared
// here because nvml.h is not on every build host (it ships with the driver and some
// toolkits) and libnvidia-ml is opened at run time, never linked (docs/design.md).
//
// Names, values and signatures follow the NVML API reference
// (docs.nvidia.com/deploy/nvml-api, "Device Queries", "System Queries",
// "Constants") for driver branch 580; every entry below has been stable since the
// version noted beside it, except where a newer replacement is named. They live in
// their own namespace so a translation unit that also includes nvml.h still compiles.
#include <cstdint>

namespace vsa::nvml_api {

// nvmlReturn_t: only success is tested by value; every other code is shown to the
// user through nvmlErrorString.
using nvmlReturn_t = int;
inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
// Told apart because they mean "this GPU or driver cannot say" (a stated SKIP), "no event
// yet" and "the buffer was too small" (nvmlReturn_t in "Constants").
inline constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
inline constexpr nvmlReturn_t NVML_ERROR_TIMEOUT = 10;

// Opaque device handle (nvml.h: typedef struct nvmlDevice_st* nvmlDevice_t).
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;

// nvmlEnableState_t
using nvmlEnableState_t = int;
inline constexpr nvmlEnableState_t NVML_FEATURE_DISABLED = 0;
inline constexpr nvmlEnableState_t NVML_FEATURE_ENABLED = 1;

// nvmlClockType_t
using nvmlClockType_t = int;
inline constexpr nvmlClockType_t NVML_CLOCK_GRAPHICS = 0;
inline constexpr nvmlClockType_t NVML_CLOCK_SM = 1;
inline constexpr nvmlClockType_t NVML_CLOCK_MEM = 2;

// MIG mode (nvmlDeviceGetMigMode, "Multi Instance GPU Management", Ampere or newer): current and
// pending, each NVML_DEVICE_MIG_DISABLE (0) or NVML_DEVICE_MIG_ENABLE (1).
inline constexpr unsigned NVML_DEVICE_MIG_ENABLE = 1;

// nvmlTemperatureSensors_t
using nvmlTemperatureSensors_t = int;
inline constexpr nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU = 0;

// nvmlTemperatureThresholds_t ("Device Enums"): SHUTDOWN, the temperature at which the GPU shuts
// down for hardware protection; SLOWDOWN, where hardware slowdown begins; MEM_MAX, the memory
// temperature at which software slowdown begins; GPU_MAX, the GPU temperature at which it may be
// throttled below base clock (nvmlDeviceGetTemperatureThreshold, Kepler or newer).
using nvmlTemperatureThresholds_t = int;
inline constexpr nvmlTemperatureThresholds_t NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0;
inline constexpr nvmlTemperatureThresholds_t NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1;
inline constexpr nvmlTemperatureThresholds_t NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2;
inline constexpr nvmlTemperatureThresholds_t NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3;

// nvmlPerfPolicyType_t and nvmlViolationTime_t (nvmlDeviceGetViolationStatus, "Device Queries"):
// how long a policy held the GPU below application clocks; violationTime in nanoseconds,
// cumulative, referenceTime a CPU timestamp in microseconds.
using nvmlPerfPolicyType_t = int;
inline constexpr nvmlPerfPolicyType_t NVML_PERF_POLICY_POWER = 0;
inline constexpr nvmlPerfPolicyType_t NVML_PERF_POLICY_THERMAL = 1;
struct nvmlViolationTime_t {
  unsigned long long referenceTime;
  unsigned long long violationTime;
};

// nvmlProcessInfo_t (nvmlDeviceGetComputeRunningProcesses_v3, "Device Queries"; "Device Structs"):
// a process with a compute context on the device. usedGpuMemory in bytes; the two instance ids
// are meaningful under MIG only. The pid is as the caller's pid namespace numbers it.
struct nvmlProcessInfo_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

// Field values (nvmlDeviceGetFieldValues, "Field Value Queries"): the memory (HBM) temperature has
// no getter of its own, only NVML_FI_DEV_MEMORY_TEMP (82, since driver 418).
inline constexpr unsigned NVML_FI_DEV_MEMORY_TEMP = 82;
// nvmlDeviceGetPowerUsage is a one-second mean on Ampere (except GA100) and newer; the power drawn
// at the moment of the query is NVML_FI_DEV_POWER_INSTANT (186, milliwatts; NVML API reference,
// nvmlDeviceGetPowerUsage and the field value list).
inline constexpr unsigned NVML_FI_DEV_POWER_INSTANT = 186;
using nvmlValueType_t = int;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_DOUBLE = 0;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_UNSIGNED_INT = 1;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_UNSIGNED_LONG = 2;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_SIGNED_INT = 5;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_UNSIGNED_SHORT = 6;
union nvmlValue_t {
  double dVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  int siVal;
  unsigned short usVal;
};
struct nvmlFieldValue_t {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  nvmlValueType_t valueType;
  nvmlReturn_t nvmlReturn;  // per field: value is undefined unless NVML_SUCCESS
  nvmlValue_t value;
};
static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t layout (nvml.h)");

// nvmlInforomObject_t
using nvmlInforomObject_t = int;
inline constexpr nvmlInforomObject_t NVML_INFOROM_OEM = 0;
inline constexpr nvmlInforomObject_t NVML_INFOROM_ECC = 1;
inline constexpr nvmlInforomObject_t NVML_INFOROM_POWER = 2;

// nvmlMemoryErrorType_t and nvmlEccCounterType_t
using nvmlMemoryErrorType_t = int;
inline constexpr nvmlMemoryErrorType_t NVML_MEMORY_ERROR_TYPE_CORRECTED = 0;
inline constexpr nvmlMemoryErrorType_t NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1;
using nvmlEccCounterType_t = int;
inline constexpr nvmlEccCounterType_t NVML_VOLATILE_ECC = 0;
inline constexpr nvmlEccCounterType_t NVML_AGGREGATE_ECC = 1;

// nvmlPageRetirementCause_t ("Device Enums"): what retired a page (pre-Ampere GPUs; Ampere
// and newer remap rows instead and answer NOT_SUPPORTED).
using nvmlPageRetirementCause_t = int;
inline constexpr nvmlPageRetirementCause_t NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0;
inline constexpr nvmlPageRetirementCause_t NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1;

// Events ("Event Handling Methods", "Event Types"): an opaque set, the Xid bit, and the
// data a wait fills (nvmlEventData_t; gpuInstanceId/computeInstanceId since R450, read
// only under MIG).
struct nvmlEventSet_st;
using nvmlEventSet_t = nvmlEventSet_st*;
inline constexpr unsigned long long nvmlEventTypeXidCriticalError = 0x0000000000000008ULL;
struct nvmlEventData_t {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;  // the Xid for nvmlEventTypeXidCriticalError
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

// Buffer sizes ("Constants" in the reference). Each string getter fails with
// NVML_ERROR_INSUFFICIENT_SIZE rather than truncate, so these are the minimums.
inline constexpr unsigned NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;
inline constexpr unsigned NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;
inline constexpr unsigned NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96;
inline constexpr unsigned NVML_DEVICE_SERIAL_BUFFER_SIZE = 30;
inline constexpr unsigned NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE = 32;
inline constexpr unsigned NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE = 16;
inline constexpr unsigned NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32;
inline constexpr unsigned NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16;
inline constexpr unsigned NVML_GSP_FIRMWARE_VERSION_BUF_SIZE = 0x40;

// nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3 (layout unchanged since NVML 9.0).
struct nvmlPciInfo_t {
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];  // "domain:bus:device.function", 8-digit domain
};

// nvmlUtilization_t (nvmlDeviceGetUtilizationRates, "Device Queries"): the percent of time over the
// past sample period (1 s to 1/6 s, by product) during which one or more kernels ran (gpu), or
// device memory was read or written (memory). Not supported on a MIG-enabled GPU.
struct nvmlUtilization_t {
  unsigned int gpu;
  unsigned int memory;
};

// nvmlMemory_t (v1, as filled by nvmlDeviceGetMemoryInfo), bytes.
struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

// Clocks-event reason bits (nvmlClocksEventReason*, called nvmlClocksThrottleReason*
// before driver 535; same values). BoardLimit and Reliability exist only under the
// older Throttle names.
inline constexpr std::uint64_t nvmlClocksEventReasonGpuIdle = 0x1;
inline constexpr std::uint64_t nvmlClocksEventReasonApplicationsClocksSetting = 0x2;
inline constexpr std::uint64_t nvmlClocksEventReasonSwPowerCap = 0x4;
inline constexpr std::uint64_t nvmlClocksEventReasonHwSlowdown = 0x8;
inline constexpr std::uint64_t nvmlClocksEventReasonSyncBoost = 0x10;
inline constexpr std::uint64_t nvmlClocksEventReasonSwThermalSlowdown = 0x20;
inline constexpr std::uint64_t nvmlClocksEventReasonHwThermalSlowdown = 0x40;
inline constexpr std::uint64_t nvmlClocksEventReasonHwPowerBrakeSlowdown = 0x80;
inline constexpr std::uint64_t nvmlClocksEventReasonDisplayClockSetting = 0x100;
inline constexpr std::uint64_t nvmlClocksThrottleReasonBoardLimit = 0x200;
inline constexpr std::uint64_t nvmlClocksThrottleReasonReliability = 0x400;

// Function signatures, one alias per symbol resolved with dlsym.
extern "C" {
using nvmlInit_v2_fn = nvmlReturn_t (*)();
using nvmlShutdown_fn = nvmlReturn_t (*)();
using nvmlErrorString_fn = const char* (*)(nvmlReturn_t);
using nvmlSystemGetDriverVersion_fn = nvmlReturn_t (*)(char*, unsigned int);
using nvmlSystemGetCudaDriverVersion_v2_fn = nvmlReturn_t (*)(int*);
using nvmlDeviceGetCount_v2_fn = nvmlReturn_t (*)(unsigned int*);
using nvmlDeviceGetHandleByIndex_v2_fn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t*);
using nvmlDeviceGetHandleByPciBusId_v2_fn = nvmlReturn_t (*)(const char*, nvmlDevice_t*);
// Takes a GPU's "GPU-..." UUID or a MIG device's "MIG-..." one (the reference's change log: made
// MIG-aware, then taught the canonical "MIG-UUID" form); a MIG device's handle answers for its instance.
using nvmlDeviceGetHandleByUUID_fn = nvmlReturn_t (*)(const char*, nvmlDevice_t*);
using nvmlDeviceGetMigMode_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int* current, unsigned int* pending);
using nvmlDeviceGetUtilizationRates_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlUtilization_t*);
using nvmlDeviceGetIndex_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetString_fn = nvmlReturn_t (*)(nvmlDevice_t, char*,
                                                unsigned int);  // name, uuid, serial, vbios, inforom image
using nvmlDeviceGetPciInfo_v3_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlPciInfo_t*);
using nvmlDeviceGetGspFirmwareVersion_fn =
    nvmlReturn_t (*)(nvmlDevice_t, char*);  // since 510; buffer of NVML_GSP_FIRMWARE_VERSION_BUF_SIZE
using nvmlDeviceGetGspFirmwareMode_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, unsigned int*);  // since 510
using nvmlDeviceGetInforomVersion_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlInforomObject_t, char*, unsigned int);
using nvmlDeviceGetEccMode_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlEnableState_t*, nvmlEnableState_t*);
using nvmlDeviceGetTotalEccErrors_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemoryErrorType_t, nvmlEccCounterType_t,
                                                        unsigned long long*);
using nvmlDeviceGetUInt_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);  // power limit / usage (mW)
using nvmlDeviceGetClockInfo_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlClockType_t, unsigned int*);
using nvmlDeviceGetEnableState_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlEnableState_t*);  // persistence mode
using nvmlDeviceGetTemperature_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int*);
using nvmlDeviceGetMemoryInfo_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*);
using nvmlDeviceGetReasons_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*);  // clocks-event reasons
// Health (docs/qualify.md). nvmlDeviceGetRemappedRows: Ampere and newer ("Device Queries").
using nvmlDeviceGetRemappedRows_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int* corrRows, unsigned int* uncRows,
                                                      unsigned int* isPending, unsigned int* failureOccurred);
using nvmlDeviceGetRetiredPages_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlPageRetirementCause_t, unsigned int* pageCount,
                                                      unsigned long long* addresses);
using nvmlDeviceGetRetiredPagesPendingStatus_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlEnableState_t* isPending);
// Curr/Max PcieLinkGeneration and Curr/Max PcieLinkWidth; "max" is what this GPU and this
// system's slot allow together (a Gen5 GPU in a Gen4 slot reports 4).
using nvmlDeviceGetPcie_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetTemperatureThreshold_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlTemperatureThresholds_t, unsigned int*);
using nvmlDeviceGetViolationStatus_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlPerfPolicyType_t, nvmlViolationTime_t*);
using nvmlDeviceGetComputeRunningProcesses_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int* infoCount,
                                                                 nvmlProcessInfo_t* infos);
using nvmlDeviceGetFieldValues_fn = nvmlReturn_t (*)(nvmlDevice_t, int valuesCount, nvmlFieldValue_t* values);
using nvmlEventSetCreate_fn = nvmlReturn_t (*)(nvmlEventSet_t*);
using nvmlDeviceRegisterEvents_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long eventTypes, nvmlEventSet_t);
using nvmlEventSetWait_fn = nvmlReturn_t (*)(nvmlEventSet_t, nvmlEventData_t*, unsigned int timeoutms);
using nvmlEventSetFree_fn = nvmlReturn_t (*)(nvmlEventSet_t);
}

}  // namespace vsa::nvml_api
