package httpapi

import (
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// ErrorStatus is one row of the table that maps the error type of a failed
// Result to the HTTP status of the invoke response.
type ErrorStatus struct {
	// Type is the Result's error type.
	Type result.ErrorType
	// Status is the HTTP status code sent for it.
	Status int
	// Meaning says when a tool reports this type.
	Meaning string
}

// StatusClientClosedRequest (499, the nginx convention) is sent when the
// caller cancelled the call: a Result with error type cancelled, or a call
// whose request context was cancelled because the client went away. net/http
// has no name for it.
const StatusClientClosedRequest = 499

// StatusOtherDomainFailure is the status of a failed Result whose error type
// is not in the table (422 Unprocessable Content).
const StatusOtherDomainFailure = 422

// errorStatusTable is the table of the result package's own error types:
// StatusFor, ErrorStatuses, the package doc and the OpenAPI document all
// follow it. Error types of a pack are declared by the pack with its tools
// (registry.Tool.Errors), never listed here. It returns an array (a value),
// so no caller can change it and reading it does not allocate.
func errorStatusTable() [11]ErrorStatus {
	return [...]ErrorStatus{
		{result.ValidationError, 400, "the arguments were rejected; details lists every field error"},
		{result.SecurityError, 403, "refused for a security reason (path escape, missing consent, forbidden host)"},
		{result.PermissionDenied, 403, "the caller lacks the rights for this call"},
		{result.NotFound, 404, "the thing asked for does not exist (the tool exists: unknown tools are error_type unknown_tool)"},
		{result.Conflict, 409, "the call clashes with the current state"},
		{result.RateLimited, 429, "too many calls; retry later"},
		{result.Cancelled, StatusClientClosedRequest, "the caller cancelled the call"},
		{result.InternalError, 500, "a bug in the tool, such as a recovered panic"},
		{result.UpstreamFailure, 502, "a service the tool depends on failed"},
		{result.Unavailable, 503, "the tool or its backend is disabled or disconnected"},
		{result.Timeout, 504, "the call or an upstream request ran out of time"},
	}
}

// ErrorStatuses returns a copy of the error type → HTTP status table of the
// result package's error types, in status order. Other error types map to
// the status their tool declares (registry.Tool.Errors), else to
// StatusOtherDomainFailure.
func ErrorStatuses() []ErrorStatus {
	t := errorStatusTable()
	return t[:]
}

// StatusFor returns the HTTP status of an invoke response whose Result
// failed with error type t, for a tool that declares no status for it: the
// status from ErrorStatuses, or StatusOtherDomainFailure (422) for any
// other type, including "".
func StatusFor(t result.ErrorType) int {
	table := errorStatusTable()
	for i := range table {
		if table[i].Type == t {
			return table[i].Status
		}
	}
	return StatusOtherDomainFailure
}

// toolStatus is the status of a failure of type t from tool: the tool's
// own declaration (registry.Tool.Errors) when it states one, else
// StatusFor. tool may be nil.
func toolStatus(tool *registry.Tool, t result.ErrorType) int {
	if tool != nil {
		for _, e := range tool.Errors {
			if e.Type == t && e.Status != 0 {
				return e.Status
			}
		}
	}
	return StatusFor(t)
}
