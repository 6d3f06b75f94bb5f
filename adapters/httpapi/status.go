package httpapi

import "github.com/toolpack-go/toolpack/result"

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

// errorStatusTable is THE table: StatusFor, ErrorStatuses, the package doc and
// the OpenAPI document all follow it. It returns an array (a value), so no
// caller can change it and reading it does not allocate.
func errorStatusTable() [20]ErrorStatus {
	return [...]ErrorStatus{
		{result.ValidationError, 400, "the arguments were rejected; details lists every field error"},
		{"invalid_query", 400, "seed 003 search.web: the query is unusable"},
		{"invalid_port", 400, "seed 003 mlx.load/mlx.unload: the port is out of range"},
		{result.SecurityError, 403, "refused for a security reason (path escape, missing consent, forbidden host)"},
		{result.PermissionDenied, 403, "the caller lacks the rights for this call"},
		{result.NotFound, 404, "the thing asked for does not exist (the tool exists: unknown tools are error_type unknown_tool)"},
		{"model_not_found", 404, "seed 003 mlx.load: no such model"},
		{"not_listening", 404, "seed 003 mlx.unload: nothing listens on that port"},
		{result.Conflict, 409, "the call clashes with the current state"},
		{"port_busy", 409, "seed 003 mlx.load: the port is taken"},
		{"parse_failed", 422, "seed 003 web.fetch: the fetched page could not be parsed"},
		{result.RateLimited, 429, "too many calls; retry later"},
		{result.Cancelled, StatusClientClosedRequest, "the caller cancelled the call"},
		{result.InternalError, 500, "a bug in the tool, such as a recovered panic"},
		{"launch_failed", 500, "seed 003 mlx.load: the model server did not start"},
		{result.UpstreamFailure, 502, "a service the tool depends on failed"},
		{"fetch_failed", 502, "seed 003 web.fetch: the page could not be fetched"},
		{"model_error", 502, "seed 003 transcript.clean: the model failed"},
		{result.Unavailable, 503, "the tool or its backend is disabled or disconnected"},
		{result.Timeout, 504, "the call or an upstream request ran out of time"},
	}
}

// ErrorStatuses returns a copy of the error type → HTTP status table, in
// status order. Error types not in it map to StatusOtherDomainFailure.
func ErrorStatuses() []ErrorStatus {
	t := errorStatusTable()
	return t[:]
}

// StatusFor returns the HTTP status of an invoke response whose Result
// failed with error type t: the status from ErrorStatuses, or
// StatusOtherDomainFailure (422) for any other type, including "".
func StatusFor(t result.ErrorType) int {
	table := errorStatusTable()
	for i := range table {
		if table[i].Type == t {
			return table[i].Status
		}
	}
	return StatusOtherDomainFailure
}
