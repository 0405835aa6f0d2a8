package registry

import (
	"cmp"
	"strconv"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// errorNames is the vault-registry contract's error table. Numbers 1–23 are stable in every
// deployment; higher numbers differ between deployments, so they are reported as Unknown.
var errorNames = map[int]string{
	1: "AlreadyRegistered", 2: "NotFound", 3: "InvalidPrice", 4: "MetadataTooLong", 5: "InvalidTag",
	6: "Unauthorized", 7: "PendingAdminNotSet", 8: "PendingAdminAlreadySet", 9: "SameAdmin",
	10: "TermsHashTooLong", 11: "InvalidResourceId", 12: "InvalidMetadataPointer", 13: "EmptyMetadata",
	14: "AlreadyOwner", 15: "NoPendingTransfer", 16: "ReservedId", 17: "PriceExceedsMax",
	18: "AdminNotSet", 19: "NotVerifier", 20: "InvalidVerificationTransition", 21: "AlreadyFrozen",
	22: "MetadataFrozen", 23: "DuplicateInRepair",
}

// The contract errors the tools refer to by number.
const (
	ErrAlreadyRegistered = 1
	ErrNotFound          = 2
	ErrUnauthorized      = 6
	ErrAlreadyOwner      = 14
	ErrPriceExceedsMax   = 17
)

// ErrorName returns the name of vault-registry error n, or "Unknown".
func ErrorName(n int) string { return cmp.Or(errorNames[n], "Unknown") }

// ErrorCode maps a vault-registry error number to its failure code (docs/errors.md lists them);
// every other number, known or not, is CONTRACT_ERROR.
func ErrorCode(n int) string {
	switch n {
	case ErrAlreadyRegistered:
		return errmap.CodeAlreadyRegistered
	case ErrNotFound:
		return errmap.CodeNotFound
	case ErrAlreadyOwner:
		return errmap.CodeAlreadyOwner
	case ErrUnauthorized:
		return errmap.CodeContractUnauthorized
	case 3, 4, 5, 11, 12, 13, 16, ErrPriceExceedsMax:
		return errmap.CodeContractInvalidInput
	}
	return errmap.CodeContractError
}

// Errors is the registry's soroban.ContractErrors: code, name and "Name (Error(Contract, #N))".
func Errors(n int) (code, name, detail string) {
	name = ErrorName(n)
	return ErrorCode(n), name, name + " (Error(Contract, #" + strconv.Itoa(n) + "))"
}

// ContractFailure is the facts of Error(Contract, #n) of the registry reported by source
// (a failed transaction, whose number came from its diagnostic events).
func ContractFailure(f errmap.Facts, n int) errmap.Facts {
	code, name, detail := Errors(n)
	f.Code = code
	f.Upstream.ContractError, f.Upstream.ContractErrorName = n, name
	f.UpstreamDetail = cmp.Or(f.UpstreamDetail, detail)
	return f
}
