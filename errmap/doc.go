// Package errmap is the one failure taxonomy of the MindVault MCP endpoint: a pure function,
// Map (no I/O, no clock, no environment; it reads only the process-wide set of known secrets,
// to redact them), from the Facts a client or a tool classified to a Failure — the three-line
// text and the Diagnostic that travels in _meta["io.mindvault/error"]. Handlers never format
// error text themselves: clients return *Error, handlers call FromError, argument validation
// calls Validation; Codes() is the public code list. errmap sits below the tools and names none:
// each tool declares what its failures' Next line needs (a Guide: its role, traits and own
// sentences) with Declare when the process starts, and Map reads those declarations. The
// design — sources, categories, codes, retry verdicts, needs, stateChanged, the Next advice,
// redaction — is in docs/errors.md.
package errmap
