package spirv

import "fmt"

// Opcodes the rewriting and the report need by name.
const (
	opUndef               = 1
	opName                = 5
	opExtInstImport       = 11
	opExtInst             = 12
	opMemoryModel         = 14
	opEntryPoint          = 15
	opTypeInt             = 21
	opTypeArray           = 28
	opTypeRuntimeArray    = 29
	opTypeStruct          = 30
	opTypePointer         = 32
	opConstant            = 43
	opConstantNull        = 46
	opFunction            = 54
	opFunctionParam       = 55
	opFunctionEnd         = 56
	opVariable            = 59
	opLoad                = 61
	opStore               = 62
	opAccessChain         = 65
	opInBoundsAccessChain = 66
	opPtrAccessChain      = 67
	opCopyObject          = 83
	opSelect              = 169
	opReturn              = 253
	opReturnValue         = 254
	opDecorate            = 71
	opMemberDecorate      = 72
	opIAdd                = 128
	opAtomicIAdd          = 234
	opPhi                 = 245
	opLabel               = 248
	opLine                = 8
	opNoLine              = 317
)

// Decorations.
const (
	decoBlock         = 2
	decoArrayStride   = 6
	decoBinding       = 33
	decoDescriptorSet = 34
	decoOffset        = 35
)

// opNames names the opcodes kgen's shaders use (and their neighbours);
// TestOpNamesMatchSpirvDis checks every one against spirv-dis on the
// committed blobs. Others print as Op#N.
var opNames = map[uint32]string{
	0: "OpNop", 1: "OpUndef", 2: "OpSourceContinued", 3: "OpSource", 4: "OpSourceExtension", 5: "OpName",
	6: "OpMemberName", 7: "OpString", 8: "OpLine", 10: "OpExtension", 11: "OpExtInstImport", 12: "OpExtInst",
	14: "OpMemoryModel", 15: "OpEntryPoint", 16: "OpExecutionMode", 17: "OpCapability",
	19: "OpTypeVoid", 20: "OpTypeBool", 21: "OpTypeInt", 22: "OpTypeFloat", 23: "OpTypeVector", 24: "OpTypeMatrix",
	28: "OpTypeArray", 29: "OpTypeRuntimeArray", 30: "OpTypeStruct", 32: "OpTypePointer", 33: "OpTypeFunction",
	41: "OpConstantTrue", 42: "OpConstantFalse", 43: "OpConstant", 44: "OpConstantComposite", 46: "OpConstantNull",
	48: "OpSpecConstantTrue", 49: "OpSpecConstantFalse", 50: "OpSpecConstant", 51: "OpSpecConstantComposite",
	52: "OpSpecConstantOp",
	54: "OpFunction", 55: "OpFunctionParameter", 56: "OpFunctionEnd", 57: "OpFunctionCall",
	59: "OpVariable", 61: "OpLoad", 62: "OpStore", 63: "OpCopyMemory", 65: "OpAccessChain", 66: "OpInBoundsAccessChain",
	67: "OpPtrAccessChain", 68: "OpArrayLength",
	71: "OpDecorate", 72: "OpMemberDecorate",
	77: "OpVectorExtractDynamic", 78: "OpVectorInsertDynamic", 79: "OpVectorShuffle", 80: "OpCompositeConstruct",
	81: "OpCompositeExtract", 82: "OpCompositeInsert", 83: "OpCopyObject",
	109: "OpConvertFToU", 110: "OpConvertFToS", 111: "OpConvertSToF", 112: "OpConvertUToF", 113: "OpUConvert",
	114: "OpSConvert", 115: "OpFConvert", 116: "OpQuantizeToF16", 124: "OpBitcast",
	126: "OpSNegate", 127: "OpFNegate", 128: "OpIAdd", 129: "OpFAdd", 130: "OpISub", 131: "OpFSub", 132: "OpIMul",
	133: "OpFMul", 134: "OpUDiv", 135: "OpSDiv", 136: "OpFDiv", 137: "OpUMod", 138: "OpSRem", 139: "OpSMod",
	140: "OpFRem", 141: "OpFMod", 142: "OpVectorTimesScalar", 148: "OpDot", 149: "OpIAddCarry", 150: "OpISubBorrow",
	151: "OpUMulExtended", 152: "OpSMulExtended",
	154: "OpAny", 155: "OpAll", 156: "OpIsNan", 157: "OpIsInf",
	164: "OpLogicalEqual", 165: "OpLogicalNotEqual", 166: "OpLogicalOr", 167: "OpLogicalAnd", 168: "OpLogicalNot",
	169: "OpSelect", 170: "OpIEqual", 171: "OpINotEqual", 172: "OpUGreaterThan", 173: "OpSGreaterThan",
	174: "OpUGreaterThanEqual", 175: "OpSGreaterThanEqual", 176: "OpULessThan", 177: "OpSLessThan",
	178: "OpULessThanEqual", 179: "OpSLessThanEqual", 180: "OpFOrdEqual", 181: "OpFUnordEqual",
	182: "OpFOrdNotEqual", 183: "OpFUnordNotEqual", 184: "OpFOrdLessThan", 185: "OpFUnordLessThan",
	186: "OpFOrdGreaterThan", 187: "OpFUnordGreaterThan", 188: "OpFOrdLessThanEqual", 189: "OpFUnordLessThanEqual",
	190: "OpFOrdGreaterThanEqual", 191: "OpFUnordGreaterThanEqual",
	194: "OpShiftRightLogical", 195: "OpShiftRightArithmetic", 196: "OpShiftLeftLogical", 197: "OpBitwiseOr",
	198: "OpBitwiseXor", 199: "OpBitwiseAnd", 200: "OpNot", 201: "OpBitFieldInsert", 202: "OpBitFieldSExtract",
	203: "OpBitFieldUExtract", 204: "OpBitReverse", 205: "OpBitCount",
	224: "OpControlBarrier", 225: "OpMemoryBarrier", 227: "OpAtomicLoad", 228: "OpAtomicStore",
	229: "OpAtomicExchange", 230: "OpAtomicCompareExchange", 232: "OpAtomicIIncrement", 233: "OpAtomicIDecrement",
	234: "OpAtomicIAdd", 235: "OpAtomicISub", 236: "OpAtomicSMin", 237: "OpAtomicUMin", 238: "OpAtomicSMax",
	239: "OpAtomicUMax", 240: "OpAtomicAnd", 241: "OpAtomicOr", 242: "OpAtomicXor",
	245: "OpPhi", 246: "OpLoopMerge", 247: "OpSelectionMerge", 248: "OpLabel", 249: "OpBranch",
	250: "OpBranchConditional", 251: "OpSwitch", 252: "OpKill", 253: "OpReturn", 254: "OpReturnValue",
	255: "OpUnreachable",
	317: "OpNoLine", 330: "OpModuleProcessed", 331: "OpExecutionModeId", 332: "OpDecorateId",
	333: "OpGroupNonUniformElect", 334: "OpGroupNonUniformAll", 335: "OpGroupNonUniformAny",
	336: "OpGroupNonUniformAllEqual", 337: "OpGroupNonUniformBroadcast", 338: "OpGroupNonUniformBroadcastFirst",
	339: "OpGroupNonUniformBallot", 340: "OpGroupNonUniformInverseBallot", 341: "OpGroupNonUniformBallotBitExtract",
	342: "OpGroupNonUniformBallotBitCount", 343: "OpGroupNonUniformBallotFindLSB",
	344: "OpGroupNonUniformBallotFindMSB", 345: "OpGroupNonUniformShuffle", 346: "OpGroupNonUniformShuffleXor",
	347: "OpGroupNonUniformShuffleUp", 348: "OpGroupNonUniformShuffleDown", 349: "OpGroupNonUniformIAdd",
	350: "OpGroupNonUniformFAdd", 351: "OpGroupNonUniformIMul", 352: "OpGroupNonUniformFMul",
	353: "OpGroupNonUniformSMin", 354: "OpGroupNonUniformUMin", 355: "OpGroupNonUniformFMin",
	356: "OpGroupNonUniformSMax", 357: "OpGroupNonUniformUMax", 358: "OpGroupNonUniformFMax",
	359: "OpGroupNonUniformBitwiseAnd", 360: "OpGroupNonUniformBitwiseOr", 361: "OpGroupNonUniformBitwiseXor",
	4450: "OpSDot", 4451: "OpUDot", 4452: "OpSUDot", 4453: "OpSDotAccSat", 4454: "OpUDotAccSat",
	4455: "OpSUDotAccSat",
	5358: "OpTypeCooperativeMatrixNV", 5359: "OpCooperativeMatrixLoadNV", 5360: "OpCooperativeMatrixStoreNV",
	5361: "OpCooperativeMatrixMulAddNV", 5362: "OpCooperativeMatrixLengthNV",
}

// glsl450Names names the GLSL.std.450 extended instructions (by number).
var glsl450Names = map[uint32]string{
	1: "Round", 2: "RoundEven", 3: "Trunc", 4: "FAbs", 5: "SAbs", 6: "FSign", 7: "SSign", 8: "Floor", 9: "Ceil",
	10: "Fract", 26: "Pow", 27: "Exp", 28: "Log", 29: "Exp2", 30: "Log2", 31: "Sqrt", 32: "InverseSqrt",
	37: "FMin", 38: "UMin", 39: "SMin", 40: "FMax", 41: "UMax", 42: "SMax", 43: "FClamp", 44: "UClamp",
	45: "SClamp", 46: "FMix", 48: "Step", 50: "Fma", 51: "Frexp", 53: "Ldexp", 54: "PackSnorm4x8",
	55: "PackUnorm4x8", 56: "PackSnorm2x16", 57: "PackUnorm2x16", 58: "PackHalf2x16", 60: "UnpackSnorm2x16",
	61: "UnpackUnorm2x16", 62: "UnpackHalf2x16", 63: "UnpackSnorm4x8", 64: "UnpackUnorm4x8",
	73: "FindILsb", 74: "FindSMsb", 75: "FindUMsb", 79: "NMin", 80: "NMax", 81: "NClamp",
}

// OpName names an opcode.
func OpName(opcode uint32) string {
	if n, ok := opNames[opcode]; ok {
		return n
	}
	return fmt.Sprintf("Op#%d", opcode)
}

// Class groups what an executed instruction does, for the report's
// summary: "control" (branches, merges, phis, calls, returns), "local"
// (loads, stores and access chains through Function, Private or Input
// pointers: registers once the driver's compiler has run), "buffer" (the same
// through StorageBuffer, Uniform or PushConstant pointers, and atomics),
// "shared" (through Workgroup pointers), "subgroup" (subgroup operations
// and barriers), "alu" (the rest: arithmetic, logic, conversions,
// composites, extended instructions).
func opClass(opcode uint32, storage uint32) string {
	switch {
	case opcode == 57 || opcode >= 245 && opcode <= 255:
		return "control"
	case opcode >= 333 && opcode <= 366 || opcode == 224 || opcode == 225:
		return "subgroup"
	case opcode == opLoad || opcode == opStore || opcode == 63 || opcode >= 65 && opcode <= 68 ||
		opcode >= 227 && opcode <= 242 || opcode == 5359 || opcode == 5360:
		switch storage {
		case storageFunction, storagePrivate, storageInput:
			return "local"
		case storageWorkgroup:
			return "shared"
		default:
			return "buffer"
		}
	}
	return "alu"
}

// Storage classes.
const (
	storageUniformConstant = 0
	storageInput           = 1
	storageUniform         = 2
	storageWorkgroup       = 4
	storagePrivate         = 6
	storageFunction        = 7
	storagePushConstant    = 9
	storageStorageBuffer   = 12
	storageUnknown         = 0xFFFFFFFF
)
