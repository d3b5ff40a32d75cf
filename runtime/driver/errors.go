package driver

import (
	"errors"
	"fmt"
	"unsafe"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrNoDriver: the backend's driver library could not be loaded (or
	// lacks entry points this package needs). The message says what to
	// install.
	ErrNoDriver = errors.New("driver: GPU driver library not available")
	// ErrNoDevice: the library loaded but reports no usable device, or the
	// requested ordinal is out of range.
	ErrNoDevice = errors.New("driver: no such GPU device")
	// ErrDeviceLost: a kernel faulted (illegal address, trap, assert, launch
	// failure, timeout). These errors are sticky: the context is unusable and
	// every later call fails; close it and open a new one.
	ErrDeviceLost = errors.New("driver: device context lost")
	// ErrClosed: the Context was closed.
	ErrClosed = errors.New("driver: context closed")
	// ErrNotFound: a kernel (or other symbol) is not in the module.
	ErrNotFound = errors.New("driver: not found")
)

// Error is a failed driver call, e.g.
// "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (1)".
type Error struct {
	Backend Backend
	Op      string // entry point, e.g. cuLaunchKernel or hipModuleLaunchKernel
	Code    int    // CUresult / hipError_t
	Name    string // e.g. CUDA_ERROR_INVALID_VALUE / hipErrorInvalidValue
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s (%d)", e.Op, e.Name, e.Code) }

// Is matches ErrDeviceLost for sticky kernel faults, ErrNoDevice for
// "no device" / "invalid device" and ErrNotFound for "not found".
func (e *Error) Is(target error) bool {
	switch target {
	case ErrDeviceLost:
		return sticky(e.Backend, e.Code)
	case ErrNoDevice:
		return e.Code == 100 || e.Code == 101 // both APIs: no device / invalid device
	case ErrNotFound:
		return e.Code == 500 // CUDA_ERROR_NOT_FOUND, hipErrorNotFound
	}
	return false
}

// sticky reports codes after which the context cannot be used any more.
func sticky(b Backend, code int) bool {
	switch b {
	case CUDA:
		switch code {
		case 700, 702, 710, 714, 715, 716, 717, 718, 719:
			return true
		}
	case HIP:
		switch code {
		case 700, 702, 710, 719:
			return true
		}
	}
	return false
}

// cudaErrorNames are CUresult names, used when cuGetErrorName is missing or
// does not know the code.
var cudaErrorNames = map[int]string{
	0:   "CUDA_SUCCESS",
	1:   "CUDA_ERROR_INVALID_VALUE",
	2:   "CUDA_ERROR_OUT_OF_MEMORY",
	3:   "CUDA_ERROR_NOT_INITIALIZED",
	4:   "CUDA_ERROR_DEINITIALIZED",
	5:   "CUDA_ERROR_PROFILER_DISABLED",
	34:  "CUDA_ERROR_STUB_LIBRARY",
	46:  "CUDA_ERROR_DEVICE_UNAVAILABLE",
	100: "CUDA_ERROR_NO_DEVICE",
	101: "CUDA_ERROR_INVALID_DEVICE",
	102: "CUDA_ERROR_DEVICE_NOT_LICENSED",
	200: "CUDA_ERROR_INVALID_IMAGE",
	201: "CUDA_ERROR_INVALID_CONTEXT",
	202: "CUDA_ERROR_CONTEXT_ALREADY_CURRENT",
	205: "CUDA_ERROR_MAP_FAILED",
	206: "CUDA_ERROR_UNMAP_FAILED",
	209: "CUDA_ERROR_NO_BINARY_FOR_GPU",
	214: "CUDA_ERROR_ECC_UNCORRECTABLE",
	215: "CUDA_ERROR_UNSUPPORTED_LIMIT",
	216: "CUDA_ERROR_CONTEXT_ALREADY_IN_USE",
	218: "CUDA_ERROR_INVALID_PTX",
	220: "CUDA_ERROR_NVLINK_UNCORRECTABLE",
	221: "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
	222: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
	223: "CUDA_ERROR_JIT_COMPILATION_DISABLED",
	300: "CUDA_ERROR_INVALID_SOURCE",
	301: "CUDA_ERROR_FILE_NOT_FOUND",
	302: "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND",
	303: "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED",
	304: "CUDA_ERROR_OPERATING_SYSTEM",
	400: "CUDA_ERROR_INVALID_HANDLE",
	401: "CUDA_ERROR_ILLEGAL_STATE",
	500: "CUDA_ERROR_NOT_FOUND",
	600: "CUDA_ERROR_NOT_READY",
	700: "CUDA_ERROR_ILLEGAL_ADDRESS",
	701: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	702: "CUDA_ERROR_LAUNCH_TIMEOUT",
	703: "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING",
	708: "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE",
	709: "CUDA_ERROR_CONTEXT_IS_DESTROYED",
	710: "CUDA_ERROR_ASSERT",
	714: "CUDA_ERROR_HARDWARE_STACK_ERROR",
	715: "CUDA_ERROR_ILLEGAL_INSTRUCTION",
	716: "CUDA_ERROR_MISALIGNED_ADDRESS",
	717: "CUDA_ERROR_INVALID_ADDRESS_SPACE",
	718: "CUDA_ERROR_INVALID_PC",
	719: "CUDA_ERROR_LAUNCH_FAILED",
	720: "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
	800: "CUDA_ERROR_NOT_PERMITTED",
	801: "CUDA_ERROR_NOT_SUPPORTED",
	802: "CUDA_ERROR_SYSTEM_NOT_READY",
	803: "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
	804: "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
	900: "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
	901: "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
	902: "CUDA_ERROR_STREAM_CAPTURE_MERGE",
	903: "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
	904: "CUDA_ERROR_STREAM_CAPTURE_UNJOINED",
	905: "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
	906: "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
	907: "CUDA_ERROR_CAPTURED_EVENT",
	908: "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
	909: "CUDA_ERROR_TIMEOUT",
	910: "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE",
	999: "CUDA_ERROR_UNKNOWN",
}

// hipErrorNames are hipError_t names (hip_runtime_api.h), used when
// hipGetErrorName is missing or answers with its "unknown" placeholder.
var hipErrorNames = map[int]string{
	0:    "hipSuccess",
	1:    "hipErrorInvalidValue",
	2:    "hipErrorOutOfMemory",
	3:    "hipErrorNotInitialized",
	4:    "hipErrorDeinitialized",
	9:    "hipErrorInvalidConfiguration",
	13:   "hipErrorInvalidSymbol",
	17:   "hipErrorInvalidDevicePointer",
	21:   "hipErrorInvalidMemcpyDirection",
	35:   "hipErrorInsufficientDriver",
	52:   "hipErrorMissingConfiguration",
	53:   "hipErrorPriorLaunchFailure",
	98:   "hipErrorInvalidDeviceFunction",
	100:  "hipErrorNoDevice",
	101:  "hipErrorInvalidDevice",
	200:  "hipErrorInvalidImage",
	201:  "hipErrorInvalidContext",
	209:  "hipErrorNoBinaryForGpu",
	218:  "hipErrorInvalidKernelFile",
	300:  "hipErrorInvalidSource",
	301:  "hipErrorFileNotFound",
	302:  "hipErrorSharedObjectSymbolNotFound",
	303:  "hipErrorSharedObjectInitFailed",
	304:  "hipErrorOperatingSystem",
	400:  "hipErrorInvalidHandle",
	401:  "hipErrorIllegalState",
	500:  "hipErrorNotFound",
	600:  "hipErrorNotReady",
	700:  "hipErrorIllegalAddress",
	701:  "hipErrorLaunchOutOfResources",
	702:  "hipErrorLaunchTimeOut",
	709:  "hipErrorContextIsDestroyed",
	710:  "hipErrorAssert",
	719:  "hipErrorLaunchFailure",
	720:  "hipErrorCooperativeLaunchTooLarge",
	801:  "hipErrorNotSupported",
	900:  "hipErrorStreamCaptureUnsupported",
	901:  "hipErrorStreamCaptureInvalidated",
	902:  "hipErrorStreamCaptureMerge",
	903:  "hipErrorStreamCaptureUnmatched",
	904:  "hipErrorStreamCaptureUnjoined",
	905:  "hipErrorStreamCaptureIsolation",
	906:  "hipErrorStreamCaptureImplicit",
	907:  "hipErrorCapturedEvent",
	908:  "hipErrorStreamCaptureWrongThread",
	910:  "hipErrorGraphExecUpdateFailure",
	999:  "hipErrorUnknown",
	1052: "hipErrorRuntimeMemory",
	1053: "hipErrorRuntimeOther",
}

// staticErrorName names a code from the tables above.
func staticErrorName(b Backend, code int) string {
	names, prefix := cudaErrorNames, "CUDA_ERROR_UNRECOGNIZED"
	if b == HIP {
		names, prefix = hipErrorNames, "hipErrorUnrecognized"
	}
	if n, ok := names[code]; ok {
		return n
	}
	return prefix
}

// errorName asks the driver for a code's name, falling back to the tables.
func (s *syms) errorName(b Backend, code int) string {
	switch {
	case s.CuGetErrorName != nil:
		var p *byte
		if s.CuGetErrorName(int32(code), &p) == 0 && p != nil {
			if n := gostring(p); n != "" {
				return n
			}
		}
	case s.HipGetErrorName != nil:
		// hipGetErrorName answers "hipErrorUnknown" for codes it does not
		// know; prefer our table then.
		if n := s.HipGetErrorName(int32(code)); n != "" && (n != "hipErrorUnknown" || code == 999) {
			return n
		}
	}
	return staticErrorName(b, code)
}

// newError builds the Error for a failed call of a table field.
func (s *syms) newError(b Backend, field string, code int32) error {
	return &Error{Backend: b, Op: s.symbol(field), Code: int(code), Name: s.errorName(b, int(code))}
}

// gostring copies a NUL-terminated C string (at most 4096 bytes).
func gostring(p *byte) string {
	if p == nil {
		return ""
	}
	var buf []byte
	for i := 0; i < 4096; i++ {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(p), i))
		if c == 0 {
			break
		}
		buf = append(buf, c)
	}
	return string(buf)
}
