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

// ErrNotFound is the contract's error for an id it does not hold.
const ErrNotFound = 2

const invalidInput = errmap.CodeContractInvalidInput

// errorCodes gives the vault-registry errors that have a failure code of their own (docs/errors.md
// lists them); every other number, known or not, is CONTRACT_ERROR.
var errorCodes = map[int]string{
	1: errmap.CodeAlreadyRegistered, ErrNotFound: errmap.CodeNotFound, 6: errmap.CodeContractUnauthorized,
	14: errmap.CodeAlreadyOwner, 3: invalidInput, 4: invalidInput, 5: invalidInput, 11: invalidInput,
	12: invalidInput, 13: invalidInput, 16: invalidInput, 17: invalidInput,
}

// Errors is the registry's soroban.ContractErrors: code, name and "Name (Error(Contract, #N))".
func Errors(n int) (code, name, detail string) {
	name = cmp.Or(errorNames[n], "Unknown")
	return cmp.Or(errorCodes[n], errmap.CodeContractError), name, name + " (Error(Contract, #" + strconv.Itoa(n) + "))"
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
