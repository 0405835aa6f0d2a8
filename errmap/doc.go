// Package errmap is the endpoint's one failure taxonomy (docs/errors.md): Map turns the facts a
// client or a tool classified into a Failure, the three-line text and the diagnostic of
// _meta["io.mindvault/error"], without I/O, clock or environment. Clients return *Error, handlers
// call FromError and argument validation calls Validation, so no handler formats error text. errmap
// sits below the tools and names none: each tool gives it a Guide, what the Next line of its
// failures needs.
package errmap
