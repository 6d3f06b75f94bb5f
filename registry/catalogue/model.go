package catalogue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// ToolType says how a catalogue tool runs.
type ToolType string

const (
	// TypeGo tools call a Go function registered with the catalogue; the
	// function is named by [GoImpl.Func].
	TypeGo ToolType = "go"
	// TypeHTTP tools make an outbound HTTP request built from [HTTPImpl].
	TypeHTTP ToolType = "http"
	// TypeSteps tools run a sequence of calls of other tools, written in
	// the snippet language ([StepsImpl]): each step's result may feed the
	// arguments of later steps, and the last step's result is the tool's.
	TypeSteps ToolType = "steps"
)

// Known reports whether t is one of the tool types this package defines
// ([TypeGo], [TypeHTTP], [TypeSteps]): what a store loading a record
// checks.
func (t ToolType) Known() bool {
	switch t {
	case TypeGo, TypeHTTP, TypeSteps:
		return true
	}
	return false
}

// BundleSpec is what a client PUTs for a bundle: the body of
// PUT /tools/bundles/{bundleID}.
type BundleSpec struct {
	// Slug is the bundle's short name (see [ValidateSlug]).
	Slug string `json:"slug"`
	// DisplayName is shown to people; required, at most 128 runes.
	DisplayName string `json:"displayName"`
	// Description is optional free text, at most 4096 runes.
	Description string `json:"description"`
	// IsEnabled switches every tool of the bundle on or off at once.
	IsEnabled bool `json:"isEnabled"`
}

// Bundle is a stored bundle: a named container that groups tools under one
// on/off switch.
type Bundle struct {
	// ID is the bundle's UUIDv7, chosen by the client in the URL.
	ID uuid.UUID `json:"id"`
	BundleSpec
	// BuiltIn marks bundles compiled into the binary; their content is
	// read-only and only IsEnabled may change.
	BuiltIn bool `json:"builtIn"`
	// CreatedAt is the first insertion; it never changes.
	CreatedAt time.Time `json:"createdAt"`
	// ModifiedAt is the last structural change (a PUT). Toggling IsEnabled
	// is not structural and leaves it alone.
	ModifiedAt time.Time `json:"modifiedAt"`
	// SoftDeletedAt is set by a DELETE; the reaper removes the bundle
	// [SoftDeleteRetention] later if it holds no tool by then.
	SoftDeletedAt *time.Time `json:"softDeletedAt,omitempty"`
	// SlugSince is when the bundle took its slug in this store, by the
	// store's clock: its creation or its import, or the PUT that gave it
	// another slug. Clients never set it (an import gets the time of the
	// import, whatever its records say). Among bundles sharing a slug,
	// the one holding it longest keeps the plain registry name
	// (package cataloguehost), so a bundle that comes later never takes
	// the name of another's tools.
	SlugSince time.Time `json:"slugSince"`
}

// ToolSpec is what a client PUTs for a tool: the body of
// PUT /tools/bundles/{bundleID}/tools/{toolSlug}/version/{version}.
// The impl of the tool's type is required: HTTPImpl for [TypeHTTP], GoImpl
// for [TypeGo], StepsImpl for [TypeSteps]. A go or http tool may carry the
// other of those two as well (see HTTPImpl); StepsImpl is refused on them,
// and a steps tool takes StepsImpl alone.
type ToolSpec struct {
	// DisplayName is shown to people; required, at most 128 runes.
	DisplayName string `json:"displayName"`
	// Description is optional free text, at most 16384 runes.
	Description string `json:"description"`
	// Tags are optional labels used by listings and search; at most 32,
	// each 1 to 64 runes without control characters, no duplicates.
	Tags []string `json:"tags,omitempty"`
	// IsEnabled switches the tool on or off.
	IsEnabled bool `json:"isEnabled"`
	// Type is [TypeGo], [TypeHTTP] or [TypeSteps].
	Type ToolType `json:"type"`
	// ArgSchema is the JSON Schema of the arguments; required, a JSON object
	// whose root "type" is "object". A steps tool's schema must also have
	// "properties": they are the parameters its body names (see
	// [StepParams]).
	ArgSchema json.RawMessage `json:"argSchema"`
	// OutputSchema is the optional JSON Schema of the result.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// HTTPImpl describes the request of a [TypeHTTP] tool. The impl of the
	// tool's type is required; the other may be given too (a tool that
	// switches types, or the issue's own example body): it is checked and
	// stored, and not used.
	HTTPImpl *HTTPImpl `json:"httpImpl,omitempty"`
	// GoImpl names the function of a [TypeGo] tool (see HTTPImpl for a
	// tool of the other type).
	GoImpl *GoImpl `json:"goImpl,omitempty"`
	// StepsImpl is the body of a [TypeSteps] tool; refused on the other
	// types.
	StepsImpl *StepsImpl `json:"stepsImpl,omitempty"`
}

// Tool is a stored tool version. A tool is identified by its [ToolKey]:
// the bundle, the slug and the version.
type Tool struct {
	// ID is the tool version's UUIDv7, assigned by the store at PUT. It is
	// unique within the bundle; a copy of a bundle (imported under
	// another bundle id) keeps its tools' ids, so only <bundle id, tool
	// id> is unique across the catalogue.
	ID uuid.UUID `json:"id"`
	// BundleID is the bundle holding the tool.
	BundleID uuid.UUID `json:"bundleID"`
	// Slug is the tool's short name (see [ValidateSlug]).
	Slug string `json:"slug"`
	// Version is an opaque label (see [ValidateVersion]).
	Version string `json:"version"`
	ToolSpec
	// BuiltIn marks tools compiled into the binary.
	BuiltIn bool `json:"builtIn"`
	// CreatedAt is the PUT that created this version; it never changes.
	CreatedAt time.Time `json:"createdAt"`
	// ModifiedAt is the last structural change. A version's body never
	// changes after its PUT, so it equals CreatedAt unless a store
	// rewrites the body for another reason.
	ModifiedAt time.Time `json:"modifiedAt"`
	// LastCalledAt is the latest recorded call, nil before the first.
	LastCalledAt *time.Time `json:"lastCalledAt,omitempty"`
	// CallCount is the number of recorded calls.
	CallCount int64 `json:"callCount"`
}

// Key returns the tool's identity.
func (t *Tool) Key() ToolKey {
	return ToolKey{BundleID: t.BundleID, Slug: t.Slug, Version: t.Version}
}

// ToolKey identifies one tool version: within a bundle, <slug, version> is
// unique; across bundles the same pair may repeat.
type ToolKey struct {
	// BundleID is the bundle's UUIDv7.
	BundleID uuid.UUID
	// Slug is the tool's slug (see [ValidateSlug]).
	Slug string
	// Version is the tool's version label (see [ValidateVersion]).
	Version string
}

// Describe names the tool version in errors, as every store does: "tool
// {slug}@{version} in bundle {id}".
func (k ToolKey) Describe() string {
	return fmt.Sprintf("tool %s@%s in bundle %s", k.Slug, k.Version, k.BundleID)
}

// Compare orders tool keys as every [Store] lists tools: by bundle id
// (its 16 bytes), then slug, then version, each compared byte by byte
// (so "a" < "a-b" < "alpha", and version "10" sorts before "2"). It
// returns -1, 0 or +1.
func (k ToolKey) Compare(o ToolKey) int {
	if c := bytes.Compare(k.BundleID[:], o.BundleID[:]); c != 0 {
		return c
	}
	if c := strings.Compare(k.Slug, o.Slug); c != 0 {
		return c
	}
	return strings.Compare(k.Version, o.Version)
}

// GoImpl names the Go function that runs a [TypeGo] tool.
type GoImpl struct {
	// Func is the name the function was registered under; 1 to 128 runes,
	// letters, digits, '.', '_' and '-'.
	Func string `json:"func"`
}

// StepsImpl is the call sequence of a [TypeSteps] tool.
type StepsImpl struct {
	// Body is written in the snippet language of package
	// registry/snippet: one tool call per line, `name = tool(arg=value)`,
	// later lines referring to earlier results by name (r.items[0].url)
	// and to the tool's arguments as {{ param }}. Every placeholder names
	// a top-level property of the argSchema that is required or has a
	// "default". At most [MaxStepsBodyBytes] bytes and [MaxSteps] calls.
	//
	//	r = geo.lookup(city={{ city }})
	//	weather.now(lat=r.lat, lon=r.lon, unit="{{ unit }}")
	Body string `json:"body"`
}

// HTTPImpl describes how a [TypeHTTP] tool calls its upstream.
type HTTPImpl struct {
	// Request is the request template; required.
	Request HTTPRequest `json:"request"`
	// Response says how the upstream's answer is read.
	Response HTTPResponse `json:"response"`
	// Limits bound one call; every zero field means the host's default.
	Limits HTTPLimits `json:"limits"`
}

// HTTPRequest is a request template. "${name}" placeholders are filled from
// the call's arguments or from the host's secrets at invocation.
type HTTPRequest struct {
	// Method is one of GET, HEAD, POST, PUT, PATCH, DELETE.
	Method string `json:"method"`
	// URLTemplate must start with http:// or https://.
	URLTemplate string `json:"urlTemplate"`
	// Query holds query parameters (name → template).
	Query map[string]string `json:"query,omitempty"`
	// Headers holds request headers (name → template).
	Headers map[string]string `json:"headers,omitempty"`
	// Body is the body template; empty for none.
	Body string `json:"body"`
	// Auth is optional authentication.
	Auth *HTTPAuth `json:"auth,omitempty"`
}

// Authentication kinds of [HTTPAuth.Type].
const (
	// AuthBearer sends "Authorization: Bearer <Token>".
	AuthBearer = "bearer"
	// AuthBasic sends HTTP basic authentication from Username and Password.
	AuthBasic = "basic"
	// AuthAPIKey sends Value in the header or query parameter Name (In is
	// "header" or "query").
	AuthAPIKey = "apiKey"
	// AuthHMAC signs the request with Secret (Algorithm "sha256" or
	// "sha512") and puts the signature in header Name.
	AuthHMAC = "hmac"
	// AuthOAuth2 fetches a token with the client-credentials grant from
	// TokenURL using ClientID, ClientSecret and Scopes.
	AuthOAuth2 = "oauth2ClientCredentials"
)

// HTTPAuth is the authentication of an [HTTPRequest]. Which fields are
// required depends on Type; the others must be empty. Credentials (Token,
// Password, Value, Secret, ClientSecret) must be a single "${NAME}"
// placeholder, filled from the host's secrets at invocation, so that no
// credential is ever stored in the catalogue or served by it.
type HTTPAuth struct {
	// Type is one of AuthBearer, AuthBasic, AuthAPIKey, AuthHMAC, AuthOAuth2.
	Type string `json:"type"`
	// Token is the bearer token (AuthBearer).
	Token string `json:"token,omitempty"`
	// Username is the basic-auth user (AuthBasic).
	Username string `json:"username,omitempty"`
	// Password is the basic-auth password (AuthBasic).
	Password string `json:"password,omitempty"`
	// In is "header" or "query" (AuthAPIKey).
	In string `json:"in,omitempty"`
	// Name is the header or query parameter carrying the key (AuthAPIKey)
	// or the signature header (AuthHMAC).
	Name string `json:"name,omitempty"`
	// Value is the API key (AuthAPIKey).
	Value string `json:"value,omitempty"`
	// Secret is the signing key (AuthHMAC).
	Secret string `json:"secret,omitempty"`
	// Algorithm is "sha256" or "sha512" (AuthHMAC).
	Algorithm string `json:"algorithm,omitempty"`
	// TokenURL is the token endpoint, http:// or https:// (AuthOAuth2).
	TokenURL string `json:"tokenURL,omitempty"`
	// ClientID is the OAuth2 client id (AuthOAuth2).
	ClientID string `json:"clientID,omitempty"`
	// ClientSecret is the OAuth2 client secret (AuthOAuth2).
	ClientSecret string `json:"clientSecret,omitempty"`
	// Scopes are the OAuth2 scopes requested (AuthOAuth2, optional).
	Scopes []string `json:"scopes,omitempty"`
}

// HTTPResponse says how an upstream answer is read.
type HTTPResponse struct {
	// Encoding is "json", "text" or "sse" (a text/event-stream whose
	// events are reported as progress while it streams; the value is
	// {"events": […], "text": …}); empty means "json".
	Encoding string `json:"encoding"`
	// Extract optionally narrows the decoded answer; empty keeps it whole.
	Extract string `json:"extract"`
}

// HTTPLimits bound one call of an HTTP tool. Zero in any field means the
// host's default.
type HTTPLimits struct {
	// Timeout is a Go duration ("10s"), at most 10 minutes.
	Timeout string `json:"timeout,omitempty"`
	// MaxRequestBytes caps the request body.
	MaxRequestBytes int64 `json:"maxRequestBytes,omitempty"`
	// MaxResponseBytes caps the response body.
	MaxResponseBytes int64 `json:"maxResponseBytes,omitempty"`
	// MaxRetries is at most 10.
	MaxRetries int `json:"maxRetries,omitempty"`
	// MaxCallsPerMinute rate-limits the tool.
	MaxCallsPerMinute int `json:"maxCallsPerMinute,omitempty"`
}

// NewID returns a fresh UUIDv7, the kind of id bundles and tools carry.
func NewID() (uuid.UUID, error) {
	return uuid.NewV7()
}

// DisabledReason says why tool t of bundle b cannot be called — the tool,
// its bundle or both are switched off in the catalogue — and how to switch
// it on, naming the tool by slug and version and the bundle by slug; ""
// when both are on. The registry's failure for a call of a disabled
// catalogue tool ends with it (registry.Tool.Disabled), and so does the
// REST API's answer to an invoke of one, so that a user who switched a
// tool off is told so, not that the tool does not exist.
func DisabledReason(b Bundle, t Tool) string {
	switch {
	case !b.IsEnabled && !t.IsEnabled:
		return fmt.Sprintf("catalogue tool %q version %q and its bundle %q are switched off in the tools catalogue; switch both on there (the admin page's switches, or PATCH the bundle and the tool version in the catalogue API with {\"isEnabled\": true})", t.Slug, t.Version, b.Slug)
	case !b.IsEnabled:
		return fmt.Sprintf("the bundle %q of catalogue tool %q version %q is switched off in the tools catalogue; switch it on there (the admin page's switch, or PATCH the bundle in the catalogue API with {\"isEnabled\": true})", b.Slug, t.Slug, t.Version)
	case !t.IsEnabled:
		return fmt.Sprintf("catalogue tool %q version %q of bundle %q is switched off in the tools catalogue; switch it on there (the admin page's switch, or PATCH the tool version in the catalogue API with {\"isEnabled\": true})", t.Slug, t.Version, b.Slug)
	}
	return ""
}
