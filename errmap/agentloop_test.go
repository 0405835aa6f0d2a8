package errmap

import "testing"

// agentLoop is what a program that reads only the diagnostic does with each code (nothing
// changed, the tool's own refinements aside): the retry verdict and who, if anyone, must act
// first. A code added without a row here fails TestAgentLoopEveryCode, so every new code is
// decided for the loop on purpose.
//
// The rules it holds (docs/errors.md "The agent's loop"): after_action without needs means a
// call the agent can make fixes the cause (the tool gives it as nextAction); a cause only a
// person can remove has needs, and the loop stops there; a refusal that protects the user's
// money is never a retry.
var agentLoop = map[string]struct {
	retry Retry
	needs Needs
}{
	CodeNetworkError:           {RetrySafe, ""},
	CodeCancelled:              {RetrySafe, ""},
	CodeTimeout:                {RetrySafe, ""},
	CodePaymentRequired:        {RetryAfterAction, NeedsUser},
	CodePaymentRejected:        {RetryAfterAction, NeedsUser},
	CodePaymentSimFailed:       {RetryAfterAction, NeedsUser},
	CodeInsufficientUSDC:       {RetryAfterAction, NeedsUser},
	CodeInsufficientBalance:    {RetryAfterAction, NeedsUser},
	CodeTrustlineMissing:       {RetryAfterAction, NeedsUser},
	CodePriceAboveCap:          {RetryAfterAction, NeedsUser},
	CodePriceChanged:           {RetryAfterAction, NeedsUser},
	CodeConfirmationDeclined:   {RetryNo, NeedsUser},
	CodeBudgetExceeded:         {RetryAfterWait, ""},
	CodeConfirmationStale:      {RetryAfterAction, NeedsUser},
	CodeUnsupportedRequirement: {RetryNo, NeedsOperator},
	CodeFeesNotSponsored:       {RetryNo, NeedsOperator},
	CodeInvalidArguments:       {RetryAfterCorrection, ""},
	CodeInvalidRequest:         {RetryAfterCorrection, ""},
	CodeMainnetNotConfirmed:    {RetryAfterCorrection, NeedsUser},
	CodeConfirmationInvalid:    {RetryAfterCorrection, ""},
	CodeBadRequest:             {RetryAfterCorrection, ""},
	CodeContractInvalidInput:   {RetryAfterCorrection, ""},
	CodeUnexpectedTransaction:  {RetryNo, NeedsOperator},
	CodeDeliveryTooLarge:       {RetryNo, NeedsOperator},
	CodeUnauthorized:           {RetryAfterAction, NeedsUser},
	CodeForbidden:              {RetryAfterAction, NeedsUser},
	CodeContractUnauthorized:   {RetryAfterAction, NeedsUser},
	CodeTxBadAuth:              {RetryAfterAction, NeedsUser},
	CodeCredentialsMissing:     {RetryAfterAction, NeedsUser},
	CodeReadOnlyStore:          {RetryAfterAction, NeedsOperator},
	CodeProfileNotAllowed:      {RetryAfterAction, NeedsOperator},
	CodeNotFound:               {RetryAfterCorrection, ""},
	CodeUnknownName:            {RetryAfterCorrection, ""},
	CodeAccountMissing:         {RetryAfterCorrection, NeedsUser},
	CodeConflict:               {RetryNo, ""},
	CodeAlreadyRegistered:      {RetryNo, ""},
	CodeAlreadyOwner:           {RetryNo, ""},
	CodePriceMismatch:          {RetryAfterWait, ""},
	CodeProfileExists:          {RetryNo, ""},
	CodeAlreadyPurchased:       {RetryNo, ""},
	CodeDuplicatePayment:       {RetryNo, ""},
	CodeInProgress:             {RetryAfterWait, ""},
	CodePayeeMismatch:          {RetryNo, NeedsOperator},
	CodePayeeNotAllowed:        {RetryNo, NeedsOperator},
	CodeResourceDenied:         {RetryNo, NeedsOperator},
	CodeSpendingPaused:         {RetryNo, NeedsOperator},
	CodeIdempotencyKeyReused:   {RetryAfterCorrection, ""},
	CodeRateLimited:            {RetryAfterWait, ""},
	CodeServerError:            {RetrySafe, ""},
	CodeSettlementFailed:       {RetrySafe, ""},
	CodeInternalError:          {RetrySafe, ""},
	CodeChainUnavailable:       {RetrySafe, ""},
	CodeMalformedResponse:      {RetrySafe, ""},
	CodeTxBadSequence:          {RetrySafe, ""},
	CodeTxExpired:              {RetrySafe, ""},
	CodeContractError:          {RetryAfterAction, NeedsOperator},
	CodeContractMissing:        {RetryAfterAction, NeedsOperator},
	CodeStateArchived:          {RetryAfterAction, NeedsOperator},
	CodeHostError:              {RetryAfterAction, NeedsOperator},
	CodeRPCError:               {RetryAfterAction, NeedsOperator},
	CodeUnknown:                {RetrySafe, ""},
}

// TestAgentLoopEveryCode maps every documented code and compares its verdict and needs with
// the row above; an after_action without needs must be a verdict no code has by default (its
// fixing call is the tool's to give). A state that changed clears needs: a look comes first.
func TestAgentLoopEveryCode(t *testing.T) {
	for _, c := range Codes() {
		row, ok := agentLoop[c.Code]
		if !ok {
			t.Errorf("%s has no row in agentLoop: decide its retry verdict and needs", c.Code)
			continue
		}
		d := mapT(t, Facts{Guides: testGuides, Source: SourceRequest, Operation: "Op failed", Code: c.Code}).Diagnostic
		if Retry(d.Retry) != row.retry || Needs(d.Needs) != row.needs {
			t.Errorf("%s: retry %s needs %q, want %s %q", c.Code, d.Retry, d.Needs, row.retry, row.needs)
		}
		if row.retry == RetryAfterAction && row.needs == "" {
			t.Errorf("%s: after_action without needs by default: only a tool that names the fixing call may say so", c.Code)
		}
		if d := mapT(t, Facts{Guides: testGuides, Source: SourceRequest, Operation: "Op failed", Code: c.Code, StateChanged: StateUnknown}).Diagnostic; d.Needs != "" || d.Retry != string(RetryNo) {
			t.Errorf("%s with an unknown outcome: needs %q retry %s, want a look first (no needs, retry no)", c.Code, d.Needs, d.Retry)
		}
	}
	for code := range agentLoop {
		if !IsCode(code) {
			t.Errorf("agentLoop has a row for %s, which is not a code", code)
		}
	}
}
