package catalogue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolpack-go/toolpack/internal/jsonnum"
	"github.com/toolpack-go/toolpack/internal/jsonptr"
	"github.com/toolpack-go/toolpack/internal/jsontext"
	"github.com/toolpack-go/toolpack/registry/snippet"
)

// Length limits of text fields, in runes.
const (
	// MaxSlugRunes bounds slugs and versions.
	MaxSlugRunes = 64
	// MaxDisplayNameRunes bounds display names.
	MaxDisplayNameRunes = 128
	// MaxBundleDescriptionRunes bounds bundle descriptions.
	MaxBundleDescriptionRunes = 4096
	// MaxToolDescriptionRunes bounds tool descriptions.
	MaxToolDescriptionRunes = 16384
	// MaxTags bounds the number of tags of a tool.
	MaxTags = 32
	// MaxTagRunes bounds one tag.
	MaxTagRunes = 64
	// MaxTemplateRunes bounds one template string of an HTTP tool (URL,
	// query value, header value, auth value).
	MaxTemplateRunes = 8192
	// MaxBodyTemplateRunes bounds the body template of an HTTP tool.
	MaxBodyTemplateRunes = 65536
	// MaxJSONDepth bounds the nesting of a body (schemas included).
	MaxJSONDepth = 64
	// MaxStepsBodyBytes bounds the body of a steps tool ([StepsImpl]).
	MaxStepsBodyBytes = 16 << 10
	// MaxSteps bounds the tool calls of a steps tool's body.
	MaxSteps = 32
)

// Bounds of [HTTPLimits].
const (
	maxTimeout    = 10 * time.Minute
	maxRetries    = 10
	maxLimitBytes = 1 << 40
)

// ValidateSlug checks a tool or bundle slug: 1 to 64 runes, each a Unicode
// letter, a Unicode digit or an ASCII dash. Slugs are case-sensitive.
func ValidateSlug(s string) error {
	return checkLabel(s, false)
}

// ValidateVersion checks a version label: like a slug, and a dot is also
// allowed. Versions are opaque: no ordering is implied.
func ValidateVersion(s string) error {
	return checkLabel(s, true)
}

func checkLabel(s string, dot bool) error {
	what := "letters, digits and '-'"
	if dot {
		what = "letters, digits, '-' and '.'"
	}
	if s == "" {
		return fmt.Errorf("expected 1 to %d runes of %s, got an empty string", MaxSlugRunes, what)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("expected valid UTF-8")
	}
	if n := utf8.RuneCountInString(s); n > MaxSlugRunes {
		return fmt.Errorf("expected at most %d runes, got %d", MaxSlugRunes, n)
	}
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || (dot && r == '.') {
			continue
		}
		return fmt.Errorf("expected only %s, got %q at byte %d", what, r, i)
	}
	return nil
}

// ValidateID checks that id is a UUIDv7 (the kind of id bundles and tools
// carry).
func ValidateID(id uuid.UUID) error {
	if id.Version() != 7 || id.Variant() != uuid.RFC4122 {
		return fmt.Errorf("expected a UUIDv7, got %s", id)
	}
	return nil
}

// IDTime is the instant a UUIDv7 id carries (its first 48 bits,
// milliseconds since the Unix epoch), in UTC. A bundle written before its
// store kept SlugSince has held its slug since IDTime of its id: the
// plain registry name went to the smallest id, and so it still does
// among such bundles.
func IDTime(id uuid.UUID) time.Time {
	ms := int64(id[0])<<40 | int64(id[1])<<32 | int64(id[2])<<24 | int64(id[3])<<16 | int64(id[4])<<8 | int64(id[5])
	return time.UnixMilli(ms).UTC()
}

// ParseID parses a UUIDv7 from text (a URL segment, a query parameter).
func ParseID(s string) (uuid.UUID, error) {
	if len(s) != 36 {
		return uuid.Nil, fmt.Errorf("expected a UUIDv7 in the form xxxxxxxx-xxxx-7xxx-xxxx-xxxxxxxxxxxx, got %d bytes", len(s))
	}
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, fmt.Errorf("expected a UUIDv7 in the form xxxxxxxx-xxxx-7xxx-xxxx-xxxxxxxxxxxx")
	}
	if err := ValidateID(id); err != nil {
		return uuid.Nil, err
	}
	return id, nil
}

// Validate checks a tool key: the bundle id ("bundleID"), the slug ("slug")
// and the version ("version"). It returns nil or a [*ValidationError].
func (k ToolKey) Validate() error {
	var p problems
	if err := ValidateID(k.BundleID); err != nil {
		p.add("bundleID", "%v", err)
	}
	if err := ValidateSlug(k.Slug); err != nil {
		p.add("slug", "%v", err)
	}
	if err := ValidateVersion(k.Version); err != nil {
		p.add("version", "%v", err)
	}
	return p.err()
}

// Validate checks every rule of a bundle body and returns nil or a
// [*ValidationError] listing every field at fault.
func (s BundleSpec) Validate() error {
	var p problems
	if err := ValidateSlug(s.Slug); err != nil {
		p.add("slug", "%v", err)
	}
	checkText(&p, "displayName", s.DisplayName, true, MaxDisplayNameRunes)
	checkText(&p, "description", s.Description, false, MaxBundleDescriptionRunes)
	return p.err()
}

// Validate checks every rule of a tool body, compiling both schemas, and
// returns nil or a [*ValidationError] listing every field at fault.
func (s ToolSpec) Validate() error {
	var p problems
	checkText(&p, "displayName", s.DisplayName, true, MaxDisplayNameRunes)
	checkText(&p, "description", s.Description, false, MaxToolDescriptionRunes)
	if len(s.Tags) > MaxTags {
		p.add("tags", "expected at most %d tags, got %d", MaxTags, len(s.Tags))
	}
	seen := map[string]int{}
	for i, tag := range s.Tags {
		f := fmt.Sprintf("tags[%d]", i)
		checkText(&p, f, tag, true, MaxTagRunes)
		if tag != strings.TrimSpace(tag) {
			p.add(f, "expected no leading or trailing white space")
		}
		if j, dup := seen[tag]; dup {
			p.add(f, "expected unique tags, %q repeats tags[%d]", tag, j)
		} else {
			seen[tag] = i
		}
	}
	switch s.Type {
	case TypeGo:
		if s.GoImpl == nil {
			p.add("goImpl", "expected an object for a tool of type %q", TypeGo)
		} else {
			s.GoImpl.validate(&p, "goImpl")
		}
		if s.HTTPImpl != nil { // kept, unused: see ToolSpec
			s.HTTPImpl.validate(&p, "httpImpl")
		}
		refuseStepsImpl(&p, s)
	case TypeHTTP:
		if s.HTTPImpl == nil {
			p.add("httpImpl", "expected an object for a tool of type %q", TypeHTTP)
		} else {
			s.HTTPImpl.validate(&p, "httpImpl")
		}
		if s.GoImpl != nil { // kept, unused: see ToolSpec
			s.GoImpl.validate(&p, "goImpl")
		}
		refuseStepsImpl(&p, s)
	case TypeSteps:
		if s.StepsImpl == nil {
			p.add("stepsImpl", "expected an object for a tool of type %q", TypeSteps)
		} else {
			s.StepsImpl.validate(&p, "stepsImpl", s.ArgSchema)
		}
		if s.HTTPImpl != nil {
			p.add("httpImpl", "expected no httpImpl for a tool of type %q (it takes stepsImpl alone)", TypeSteps)
		}
		if s.GoImpl != nil {
			p.add("goImpl", "expected no goImpl for a tool of type %q (it takes stepsImpl alone)", TypeSteps)
		}
	default:
		p.add("type", "expected %q, %q or %q, got %q", TypeGo, TypeHTTP, TypeSteps, s.Type)
		// Still check whichever impl is there, so every error shows at once.
		if s.HTTPImpl != nil {
			s.HTTPImpl.validate(&p, "httpImpl")
		}
		if s.GoImpl != nil {
			s.GoImpl.validate(&p, "goImpl")
		}
		if s.StepsImpl != nil {
			s.StepsImpl.validate(&p, "stepsImpl", s.ArgSchema)
		}
	}
	if len(s.ArgSchema) == 0 {
		p.add("argSchema", "expected a JSON Schema object, got nothing")
	} else {
		checkSchema(&p, "argSchema", s.ArgSchema, true)
	}
	if len(s.OutputSchema) > 0 && !bytes.Equal(bytes.TrimSpace(s.OutputSchema), []byte("null")) {
		checkSchema(&p, "outputSchema", s.OutputSchema, false)
	}
	return p.err()
}

func checkText(p *problems, field, s string, required bool, max int) {
	if !utf8.ValidString(s) {
		p.add(field, "expected valid UTF-8")
		return
	}
	if required && strings.TrimSpace(s) == "" {
		p.add(field, "expected a non-empty string")
		return
	}
	if n := utf8.RuneCountInString(s); n > max {
		p.add(field, "expected at most %d runes, got %d", max, n)
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' {
			p.add(field, "expected no control characters, got %U", r)
			return
		}
	}
}

// refuseLoader keeps schema compilation inside the document: no file, no
// network.
type refuseLoader struct{}

func (refuseLoader) Load(u string) (any, error) {
	return nil, errors.New("external $ref is not allowed; keep every definition inside the schema ($defs)")
}

// CompileSchema compiles a JSON Schema document (draft 2020-12 unless it
// says otherwise in $schema). References outside the document are refused:
// compiling never reads a file or the network.
func CompileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	c, err := schemaCompiler(raw)
	if err != nil {
		return nil, err
	}
	return c.Compile(schemaLoc)
}

// schemaLoc is where schemaCompiler puts the schema document.
const schemaLoc = "urn:toolpack:catalogue:schema"

// schemaCompiler returns a compiler holding the schema document raw at
// schemaLoc, references outside it refused. A number in it that the
// validator is not given (see internal/jsonnum) is refused here, before
// anything is compiled: every schema of the catalogue is compiled from a
// compiler made here.
func schemaCompiler(raw json.RawMessage) (*jsonschema.Compiler, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("expected JSON: %w", err)
	}
	if ptr, bad := jsonnum.Unreadable(doc); bad {
		return nil, fmt.Errorf("at %q: expected %s (the validator reads every bound exactly)", ptr, jsonnum.Expected)
	}
	if m, ok := doc.(map[string]any); ok {
		if chain := jsonptr.RefCycle(m); chain != nil {
			return nil, fmt.Errorf("%s: no value can be checked against it", jsonptr.DescribeCycle(chain))
		}
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(schemaLoc, doc); err != nil {
		return nil, err
	}
	return c, nil
}

func checkSchema(p *problems, field string, raw json.RawMessage, argRoot bool) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		p.add(field, "expected a JSON Schema object")
		return
	}
	if argRoot {
		var typ string
		if t, ok := obj["type"]; !ok || json.Unmarshal(t, &typ) != nil || typ != "object" {
			p.add(field, `expected "type": "object" at the root (arguments are a JSON object)`)
		}
	}
	if _, err := CompileSchema(raw); err != nil {
		p.add(field, "expected a valid JSON Schema: %s", oneLine(err.Error()))
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

func refuseStepsImpl(p *problems, s ToolSpec) {
	if s.StepsImpl != nil {
		p.add("stepsImpl", "expected no stepsImpl for a tool of type %q; a call sequence needs \"type\": %q", s.Type, TypeSteps)
	}
}

// StepParams are the parameters a steps tool's body may name as
// {{ placeholders }}: the top-level properties of its argSchema.
type StepParams struct {
	// Names are the property names, sorted. Only those spelled as
	// identifiers (a letter or '_', then letters, digits or '_') can be
	// written as a placeholder.
	Names []string
	// Required holds the names listed in the schema's "required".
	Required map[string]bool
	// Defaults holds the "default" of each property that declares one, as
	// compact JSON. A steps tool uses it for an argument the call leaves
	// out.
	Defaults map[string]json.RawMessage
}

// ReadStepParams reads the parameters of a steps tool from its argSchema:
// a JSON object whose "properties" is an object (each member a schema
// object or a boolean) and whose optional "required" is an array of
// strings. It does not compile the schema (see [ToolSpec.Validate]).
func ReadStepParams(argSchema json.RawMessage) (StepParams, error) {
	var root struct {
		Properties *map[string]json.RawMessage `json:"properties"`
		Required   []string                    `json:"required"`
	}
	if err := json.Unmarshal(argSchema, &root); err != nil {
		return StepParams{}, fmt.Errorf(`expected a JSON Schema object with "properties" (an object) and "required" (an array of strings): %s`, oneLine(err.Error()))
	}
	if root.Properties == nil || *root.Properties == nil {
		return StepParams{}, errors.New(`expected "properties" (an object, possibly empty): they are the parameters the body names as {{ param }}`)
	}
	sp := StepParams{Required: map[string]bool{}, Defaults: map[string]json.RawMessage{}}
	for name, raw := range *root.Properties {
		sp.Names = append(sp.Names, name)
		var prop map[string]json.RawMessage
		if jsontext.Kind(raw) != "an object" {
			if k := jsontext.Kind(raw); k != "a boolean" {
				return StepParams{}, fmt.Errorf("properties[%q]: expected a schema (an object or a boolean), got %s", name, k)
			}
			continue
		}
		if err := json.Unmarshal(raw, &prop); err != nil {
			return StepParams{}, fmt.Errorf("properties[%q]: %s", name, oneLine(err.Error()))
		}
		if d, ok := prop["default"]; ok {
			var buf bytes.Buffer
			if err := json.Compact(&buf, d); err != nil {
				return StepParams{}, fmt.Errorf("properties[%q].default: %s", name, oneLine(err.Error()))
			}
			sp.Defaults[name] = buf.Bytes()
		}
	}
	sort.Strings(sp.Names)
	for _, r := range root.Required {
		sp.Required[r] = true
	}
	return sp, nil
}

// ParseSteps parses the body of a steps tool with its argSchema's
// properties as the parameters (see [snippet.ParseBody]); label names the
// tool in errors. It checks the body only: [ToolSpec.Validate] also holds
// it to the caps and the placeholder rule of [StepsImpl].
func ParseSteps(label string, spec ToolSpec) (*snippet.Snippet, StepParams, error) {
	if spec.StepsImpl == nil {
		return nil, StepParams{}, fmt.Errorf("expected a stepsImpl for a tool of type %q", TypeSteps)
	}
	sp, err := ReadStepParams(spec.ArgSchema)
	if err != nil {
		return nil, StepParams{}, fmt.Errorf("argSchema: %w", err)
	}
	sn, err := snippet.ParseBody(label, spec.StepsImpl.Body, sp.Names)
	if err != nil {
		return nil, StepParams{}, err
	}
	return sn, sp, nil
}

func (st *StepsImpl) validate(p *problems, path string, argSchema json.RawMessage) {
	body := child(path, "body")
	if n := len(st.Body); n > MaxStepsBodyBytes {
		p.add(body, "expected at most %d bytes, got %d", MaxStepsBodyBytes, n)
		return
	}
	if len(argSchema) == 0 {
		return // reported under argSchema
	}
	sp, err := ReadStepParams(argSchema)
	if err != nil {
		p.add("argSchema", "%v", err)
		return
	}
	checkDefaults(p, argSchema, sp.Defaults)
	sn, err := snippet.ParseBody("", st.Body, sp.Names)
	if err != nil {
		var pe *snippet.ParseError
		for _, e := range unjoin(err) {
			if errors.As(e, &pe) {
				p.add(body, "%s", positioned(pe.Line, pe.Column, pe.Msg))
			} else {
				p.add(body, "%v", e)
			}
		}
		return
	}
	if n := sn.Calls(); n > MaxSteps {
		p.add(body, "expected at most %d tool calls, got %d", MaxSteps, n)
	}
	seen := map[string]bool{}
	for _, ph := range sn.Placeholders() {
		if seen[ph.Param] || sp.Required[ph.Param] {
			continue
		}
		if _, ok := sp.Defaults[ph.Param]; ok {
			continue
		}
		seen[ph.Param] = true
		p.add(body, "%s", positioned(ph.Line, ph.Column, fmt.Sprintf(
			"{{ %s }} names an argument a call may leave out; list %q in the argSchema's \"required\" or give the property a \"default\"", ph.Param, ph.Param)))
	}
}

// checkDefaults holds every property default of a steps tool's argSchema
// to the property's own schema: a call that leaves the argument out gets
// the default, so a default the schema refuses would make the tool fail
// for what the caller never sent. A schema that does not compile is
// reported under argSchema already.
func checkDefaults(p *problems, argSchema json.RawMessage, defaults map[string]json.RawMessage) {
	if len(defaults) == 0 {
		return
	}
	c, err := schemaCompiler(argSchema)
	if err != nil {
		return // reported under argSchema
	}
	names := make([]string, 0, len(defaults))
	for name := range defaults {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ptr := jsonptr.FromTokens([]string{"properties", name})
		sch, err := c.Compile(schemaLoc + "#" + (&url.URL{Fragment: ptr}).EscapedFragment())
		if err != nil {
			return // the whole schema is refused under argSchema
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(defaults[name]))
		if err != nil {
			continue // ReadStepParams compacted it: it is JSON
		}
		// v is part of argSchema: its numbers were checked with it.
		if err := sch.Validate(v); err != nil {
			// The first line names the schema's internal location; the
			// others are the problems ("- at '/x': maximum: got 12, want 9").
			lines := strings.Split(err.Error(), "\n")
			why := lines[0]
			if len(lines) > 1 {
				for i, l := range lines[1:] {
					lines[i] = strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "-")), "at '': ")
				}
				why = strings.Join(lines[:len(lines)-1], "; ")
			}
			p.add(fmt.Sprintf("argSchema.properties[%q].default", name),
				"expected a value the property's schema accepts (a call leaving %q out gets it): %s", name, oneLine(why))
		}
	}
}

// positioned prefixes a body problem with its line and column.
func positioned(line, col int, msg string) string {
	switch {
	case line == 0:
		return msg
	case col == 0:
		return fmt.Sprintf("line %d: %s", line, msg)
	}
	return fmt.Sprintf("line %d, column %d: %s", line, col, msg)
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func (g *GoImpl) validate(p *problems, path string) {
	f := child(path, "func")
	if g.Func == "" {
		p.add(f, "expected the name of a registered Go function, got an empty string")
		return
	}
	if n := utf8.RuneCountInString(g.Func); n > 128 {
		p.add(f, "expected at most 128 runes, got %d", n)
	}
	for _, r := range g.Func {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-') {
			p.add(f, "expected letters, digits, '.', '_' and '-', got %q", r)
			return
		}
	}
}

var httpMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"}

func (h *HTTPImpl) validate(p *problems, path string) {
	rq := child(path, "request")
	r := &h.Request
	if !contains(httpMethods, r.Method) {
		p.add(child(rq, "method"), "expected one of %s, got %q", strings.Join(httpMethods, ", "), r.Method)
	}
	checkURLTemplate(p, child(rq, "urlTemplate"), r.URLTemplate)
	checkTemplateMap(p, child(rq, "query"), r.Query, false)
	checkTemplateMap(p, child(rq, "headers"), r.Headers, true)
	checkTemplateN(p, child(rq, "body"), r.Body, false, MaxBodyTemplateRunes)
	if r.Auth != nil {
		r.Auth.validate(p, child(rq, "auth"))
	}
	rs := child(path, "response")
	if e := h.Response.Encoding; e != "" && e != "json" && e != "text" && e != "sse" {
		p.add(child(rs, "encoding"), `expected "json", "text" or "sse", got %q`, e)
	}
	checkText(p, child(rs, "extract"), h.Response.Extract, false, 1024)
	l, lp := &h.Limits, child(path, "limits")
	if l.Timeout != "" {
		d, err := time.ParseDuration(l.Timeout)
		switch {
		case err != nil:
			p.add(child(lp, "timeout"), `expected a Go duration such as "10s", got %q`, l.Timeout)
		case d <= 0 || d > maxTimeout:
			p.add(child(lp, "timeout"), "expected a duration above 0 and at most %s, got %s", maxTimeout, d)
		}
	}
	checkRange(p, child(lp, "maxRequestBytes"), l.MaxRequestBytes, maxLimitBytes)
	checkRange(p, child(lp, "maxResponseBytes"), l.MaxResponseBytes, maxLimitBytes)
	checkRange(p, child(lp, "maxRetries"), int64(l.MaxRetries), maxRetries)
	checkRange(p, child(lp, "maxCallsPerMinute"), int64(l.MaxCallsPerMinute), 1_000_000)
}

func checkRange(p *problems, field string, v, max int64) {
	if v < 0 || v > max {
		p.add(field, "expected 0 (the host's default) to %d, got %d", max, v)
	}
}

func checkURLTemplate(p *problems, field, s string) {
	// The template is never quoted: it may hold a literal key (in its
	// query, its path or user information).
	if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		p.add(field, "expected a URL starting with http:// or https:// (template not shown)")
		return
	}
	if !checkTemplate(p, field, s, true) {
		return
	}
	// The host must be literal: a placeholder there could send the call
	// anywhere.
	rest := s[strings.Index(s, "://")+3:]
	host := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host = rest[:i]
	}
	switch {
	case strings.Contains(host, "${"):
		p.add(field, "expected a literal host, got a placeholder in the host (template not shown)")
	case host == "":
		p.add(field, "expected a host after the scheme")
	default:
		if _, err := url.Parse(s[:len(s)-len(rest)] + host); err != nil {
			p.add(field, "expected a valid host after the scheme (template not shown)")
		}
	}
}

func checkTemplateMap(p *problems, field string, m map[string]string, header bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f := fmt.Sprintf("%s[%q]", field, k)
		if k == "" {
			p.add(f, "expected a non-empty name")
		} else if header && !isToken(k) {
			p.add(f, "expected a header name of letters, digits and !#$%%&'*+-.^_`|~")
		}
		checkTemplate(p, f, m[k], header)
	}
}

func (a *HTTPAuth) validate(p *problems, path string) {
	type field struct {
		name string
		val  string
	}
	all := []field{{"token", a.Token}, {"username", a.Username}, {"password", a.Password},
		{"in", a.In}, {"name", a.Name}, {"value", a.Value}, {"secret", a.Secret},
		{"algorithm", a.Algorithm}, {"tokenURL", a.TokenURL}, {"clientID", a.ClientID},
		{"clientSecret", a.ClientSecret}}
	var need []string
	switch a.Type {
	case AuthBearer:
		need = []string{"token"}
	case AuthBasic:
		need = []string{"username", "password"}
	case AuthAPIKey:
		need = []string{"in", "name", "value"}
		if a.In != "" && a.In != "header" && a.In != "query" {
			p.add(child(path, "in"), `expected "header" or "query", got %q`, a.In)
		}
	case AuthHMAC:
		need = []string{"secret", "name", "algorithm"}
		if a.Algorithm != "" && a.Algorithm != "sha256" && a.Algorithm != "sha512" {
			p.add(child(path, "algorithm"), `expected "sha256" or "sha512", got %q`, a.Algorithm)
		}
	case AuthOAuth2:
		need = []string{"tokenURL", "clientID", "clientSecret"}
		if a.TokenURL != "" {
			checkURLTemplate(p, child(path, "tokenURL"), a.TokenURL)
		}
	default:
		p.add(child(path, "type"), "expected one of %s, %s, %s, %s, %s, got %q",
			AuthBearer, AuthBasic, AuthAPIKey, AuthHMAC, AuthOAuth2, a.Type)
		return
	}
	for _, f := range all {
		fp := child(path, f.name)
		if contains(need, f.name) {
			if f.val == "" {
				p.add(fp, "expected a non-empty string for auth type %q", a.Type)
			} else if secretFields[f.name] {
				if !isSinglePlaceholder(f.val) {
					// The value is not echoed: it may be a credential.
					p.add(fp, `expected a single "${NAME}" placeholder naming a secret of the host; a literal credential would be stored and served in clear`)
				}
			} else if f.name != "tokenURL" {
				checkTemplate(p, fp, f.val, true)
			}
		} else if f.val != "" {
			p.add(fp, "expected no %s for auth type %q", f.name, a.Type)
		}
	}
	if len(a.Scopes) > 0 && a.Type != AuthOAuth2 {
		p.add(child(path, "scopes"), "expected no scopes for auth type %q", a.Type)
	}
	for i, s := range a.Scopes {
		checkText(p, fmt.Sprintf("%s[%d]", child(path, "scopes"), i), s, true, 256)
	}
}

// checkTemplate checks the "${name}" placeholders of a template: each is
// closed and names a letter or '_' followed by letters, digits and '_'.
// singleLine also refuses line breaks (URLs, headers). It reports whether
// the template is well formed.
func checkTemplate(p *problems, field, s string, singleLine bool) bool {
	return checkTemplateN(p, field, s, singleLine, MaxTemplateRunes)
}

// checkTemplateN is checkTemplate with a length bound of max runes.
func checkTemplateN(p *problems, field, s string, singleLine bool, max int) bool {
	before := len(p.list)
	checkText(p, field, s, false, max)
	if singleLine && strings.ContainsAny(s, "\r\n") {
		p.add(field, "expected a single line")
	}
	for rest := s; ; {
		i := strings.Index(rest, "${")
		if i < 0 {
			break
		}
		rest = rest[i+2:]
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			p.add(field, `expected "}" to close a "${" placeholder`)
			break
		}
		if !isPlaceholderName(rest[:j]) {
			p.add(field, "expected a placeholder name of letters, digits and '_' not starting with a digit, got ${%s}", clip(rest[:j]))
		}
		rest = rest[j+1:]
	}
	return len(p.list) == before
}

// CheckCredentials checks the rule a tool must follow when it is written
// (PUT, import) but not when it is read back: no header or query
// parameter whose name says it carries a credential (see
// [CredentialName]) holds one literally. Such a value must hold a
// "${NAME}" placeholder ("Bearer ${TOKEN}"), filled from the host's
// secrets at invocation, so that the credential is never stored in the
// catalogue nor served by it (GET, list, export), and the text outside
// its placeholders may only be scheme words (the HTTP authentication
// schemes: Basic, Bearer, Digest, DPoP, Negotiate, NTLM, OAuth…, and
// Token, ApiKey, Api-Key, Key, JWT, HMAC, HMAC-SHA256, AWS4-HMAC-SHA256,
// SharedKey, SSO-Key, Splunk; any case) and the separators space,
// tab, ':', ',', ';' and '=' — in a Cookie header also cookie names
// (letters, '_', '-', '.') before '=' —, so that "Bearer ${TOKEN}",
// "Basic ${B64}", "${USER}:${PASS}" and "sid=${SID}" pass and a literal
// credential written beside a placeholder ("Bearer sk-live-abc ${X}")
// does not. The query of the URL
// template is checked alike. The problems name the field and never show
// the value. It returns nil or a [*ValidationError].
//
// Tools stored before this rule (files, PostgreSQL) still load, are
// listed and run: [ToolSpec.Validate] does not apply it. [CheckToolPut],
// [CheckImport] and [DecodeToolSpec] do, so every store and the REST API
// refuse such a tool when it is written.
func (s ToolSpec) CheckCredentials() error {
	var p problems
	checkCredentialLiterals(&p, "", s)
	return p.err()
}

// CredentialName reports whether a header or query parameter named name
// carries a credential. The name is read as words (split at anything but
// letters and digits, and where camel case turns: XApiKey, accessToken):
// it does when a word is, or ends in, auth, authorization, cookie, token,
// secret, password, passwd, credential(s) or signature (Authorization,
// Proxy-Authorization, X-Auth-Token, oauth_token, client_secret,
// password_hash, api_key_2), or is apikey, accesskey or secretkey, or is
// key alone or after api, access, secret, private, client, app, master,
// subscription, auth or functions (X-API-Key, Ocp-Apim-Subscription-Key,
// x-functions-key) — unless a later word says the name is about the
// credential rather than holding it (token_type, oauth_version,
// oauth_signature_method, X-Auth-Email, X-Password-Policy,
// authorization_endpoint, key_id). Names that merely hold such letters
// (keyword, author, monkey, tokenizer) and keys that are not credentials
// (sort_key, Idempotency-Key) do not.
func CredentialName(name string) bool {
	words := nameWords(name)
	for i := range words {
		if credentialWord(words, i) && !slices.ContainsFunc(words[i+1:], func(x string) bool { return aboutWords[x] }) {
			return true
		}
	}
	return false
}

// credentialWord reports whether words[i] names a credential.
func credentialWord(words []string, i int) bool {
	w := words[i]
	for _, c := range credentialWords {
		if strings.HasSuffix(w, c) {
			return true
		}
	}
	switch w {
	case "apikey", "accesskey", "secretkey":
		return true
	case "key":
		return len(words) == 1 || (i > 0 && keyQualifiers[words[i-1]])
	}
	return false
}

// credentialWords end a word naming a credential.
var credentialWords = []string{"auth", "authorization", "cookie", "token", "secret", "password", "passwd", "credential", "credentials", "signature"}

// keyQualifiers are the words before "key" that make it a credential's.
var keyQualifiers = map[string]bool{"api": true, "access": true, "secret": true, "private": true, "client": true,
	"app": true, "master": true, "subscription": true, "auth": true, "functions": true}

// aboutWords, after a credential's word, make a name about the credential
// rather than one holding it.
var aboutWords = map[string]bool{"type": true, "version": true, "method": true, "nonce": true, "email": true, "user": true,
	"mode": true, "policy": true, "endpoint": true, "url": true, "uri": true, "name": true, "length": true, "expiry": true,
	"expires": true, "expiration": true, "ttl": true, "format": true, "kind": true, "scheme": true, "realm": true,
	"status": true, "id": true, "required": true, "enabled": true, "header": true}

// nameWords splits a header or parameter name into lower-case words: at
// every character that is not a letter or digit, before an upper-case
// letter after a lower-case one or a digit (apiKey), and before the last
// of a run of upper-case letters followed by a lower-case one (APIKey).
func nameWords(name string) []string {
	var words []string
	rs := []rune(name)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			if unicode.IsLower(prev) || unicode.IsDigit(prev) ||
				(unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	return words
}

func checkCredentialLiterals(p *problems, path string, s ToolSpec) {
	if s.HTTPImpl == nil {
		return
	}
	rq := child(child(path, "httpImpl"), "request")
	const literal = `expected "${NAME}" placeholders naming secrets of the host, with beside them only scheme words (Bearer, Basic, Bot…), parameter names (name=), short plain words after "=" and separators (space : , ; = & "), in a %s that carries a credential (%s); other literal text may be a credential, which would be stored and served in clear (value not shown)`
	for _, m := range []struct {
		field, what, example string
		values               map[string]string
	}{
		{"headers", "header", `for example "Bearer ${TOKEN}"`, s.HTTPImpl.Request.Headers},
		{"query", "query parameter", `for example "${API_KEY}"`, s.HTTPImpl.Request.Query},
	} {
		keys := make([]string, 0, len(m.values))
		for k := range m.values {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if v := m.values[k]; CredentialName(k) && v != "" && !credentialValueOK(v) {
				p.add(fmt.Sprintf("%s[%q]", child(rq, m.field), k), literal, m.what, m.example)
			}
		}
	}
	u := s.HTTPImpl.Request.URLTemplate
	var params string
	if i := strings.IndexByte(u, '#'); i >= 0 {
		params = u[i+1:] // a fragment of name=value pairs is read as a query is
		u = u[:i]
	}
	if _, query, ok := strings.Cut(u, "?"); ok {
		params = query + "&" + params
	}
	// Pairs are split at ';' too, as some servers do: "x=1;api_key=…".
	for kv := range strings.FieldsFuncSeq(params, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(kv, "=")
		if name, err := url.QueryUnescape(k); err == nil {
			k = name
		}
		if value, err := url.QueryUnescape(v); err == nil {
			v = value
		}
		if CredentialName(k) && v != "" && !credentialValueOK(v) {
			p.add(child(rq, "urlTemplate"), "query parameter %q: "+literal, clip(k), "query parameter", `for example "${API_KEY}"`)
		}
	}
}

// schemeWords are the words that may stand beside the placeholders of a
// header or query parameter carrying a credential (compared without
// regard to case): the HTTP authentication schemes of the IANA registry
// and common vendor ones. Any other literal text there is refused when a
// tool is written (ToolSpec.CheckCredentials).
var schemeWords = []string{"Basic", "Bearer", "Digest", "DPoP", "GNAP", "HOBA", "Mutual", "Negotiate", "NTLM",
	"OAuth", "PrivateToken", "SCRAM-SHA-1", "SCRAM-SHA-256", "vapid", "Token", "ApiKey", "Api-Key", "Key", "JWT",
	"MAC", "HMAC", "HMAC-SHA256", "AWS4-HMAC-SHA256", "SharedKey", "SSO-Key", "Splunk",
	// Vendors' own schemes.
	"Bot", "SSWS", "DeepL-Auth-Key", "Klaviyo-API-Key", "GenieKey", "Api-Token", "Client-ID", "SharedAccessSignature",
	"Zoho-oauthtoken", "Shopify", "Sentry", "Hawk",
	// Algorithms named in Digest and OAuth 1.0 parameters.
	"MD5", "MD5-sess", "SHA-256", "SHA-256-sess", "SHA-512-256", "SHA-512-256-sess", "HMAC-SHA1", "RSA-SHA1",
	"RSA-SHA256", "PLAINTEXT"}

// credentialSchemes is schemeWords in lower case, for lookups.
var credentialSchemes = func() map[string]bool {
	m := make(map[string]bool, len(schemeWords))
	for _, s := range schemeWords {
		m[strings.ToLower(s)] = true
	}
	return m
}()

// credentialValueOK reports whether v, the value of a header or query
// parameter carrying a credential, keeps the credential out of its text:
// it holds a well-formed "${NAME}" placeholder, and every word of the text
// outside its placeholders (words being separated by space, tab, ':', ',',
// ';', '=', '&' and '"') is one of
//
//   - a scheme word (schemeWords: the IANA schemes, vendors' own such as
//     Bot, SSWS, DeepL-Auth-Key, and algorithm names);
//   - a parameter's or a cookie's name (paramName), followed by '=' and
//     then a value (a placeholder or a word: not '=' again, which is how
//     base64 padding ends, nor the end of the text);
//   - a short plain value after '=' (plainValue: "SignedHeaders=host",
//     "lang=en", "1.0"), unless the parameter's own name says it carries
//     a credential (password=, session=).
//
// Anything else there (sk-live-abcdef, dXNlcjpw…, abc123) may be a literal
// credential, and is refused.
func credentialValueOK(v string) bool {
	if !hasPlaceholder(v) {
		return false
	}
	var lit strings.Builder
	for rest := v; rest != ""; {
		i := strings.Index(rest, "${")
		if i < 0 {
			lit.WriteString(rest)
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 || !isPlaceholderName(rest[i+2:i+j]) {
			lit.WriteString(rest[:i+2]) // not a placeholder: literal text
			rest = rest[i+2:]
			continue
		}
		lit.WriteString(rest[:i])
		lit.WriteByte(0) // a placeholder separates the text around it
		rest = rest[i+j+1:]
	}
	text := lit.String()
	isSep := func(c byte) bool { return c == 0 || strings.IndexByte(" \t:,;=&\"", c) >= 0 }
	// at is the byte at i, quotes skipped in the direction step (realm="x");
	// 1 past either end.
	at := func(i, step int) (byte, int) {
		for ; i >= 0 && i < len(text); i += step {
			if text[i] != '"' {
				return text[i], i
			}
		}
		return 1, i
	}
	name := "" // the name before the last '=' seen
	for i := 0; i < len(text); {
		if isSep(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && !isSep(text[j]) {
			j++
		}
		word := text[i:j]
		next, k := at(j, 1)
		prev, _ := at(i-1, -1)
		var valueFollows bool
		if next == '=' {
			after, _ := at(k+1, 1)
			valueFollows = after == 0 || after != 1 && !isSep(after)
		}
		ok := credentialSchemes[strings.ToLower(word)] ||
			next == '=' && valueFollows && paramName(word) ||
			prev == '=' && plainValue(word) && !CredentialName(name)
		if !ok {
			return false
		}
		if next == '=' {
			name = word
		}
		i = j
	}
	return true
}

// plainValue reports whether w, after '=', is a short plain value rather
// than a credential: 1 to 16 letters, '-', '.' and '_', or a version
// of digits and dots of at most 5 characters ("1.0").
func plainValue(w string) bool {
	if w == "" || len(w) > 16 {
		return false
	}
	letters, version := true, len(w) <= 5
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("-._", c) >= 0) {
			letters = false
		}
		if !(c >= '0' && c <= '9' || c == '.') {
			version = false
		}
	}
	return letters || version
}

// paramName reports whether w may be a parameter's or a cookie's name
// before '=' beside a placeholder: 1 to 64 letters, '_', '-' and '.' (no
// digits: a run of letters and digits is what a literal credential looks
// like).
func paramName(w string) bool {
	if w == "" || len(w) > 64 {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// hasPlaceholder reports whether s holds a well-formed "${NAME}".
func hasPlaceholder(s string) bool {
	for rest := s; ; {
		i := strings.Index(rest, "${")
		if i < 0 {
			return false
		}
		rest = rest[i+2:]
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			return false
		}
		if isPlaceholderName(rest[:j]) {
			return true
		}
		rest = rest[j+1:]
	}
}

// secretFields are the HTTPAuth fields that carry credentials: they must
// be a placeholder, never the credential itself.
var secretFields = map[string]bool{"token": true, "password": true, "value": true, "secret": true, "clientSecret": true}

func isSinglePlaceholder(s string) bool {
	return strings.HasPrefix(s, "${") && strings.HasSuffix(s, "}") && isPlaceholderName(s[2:len(s)-1])
}

func isPlaceholderName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i, r := range s {
		if !(r == '_' || (r < utf8.RuneSelf && unicode.IsLetter(r)) || (i > 0 && r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return len(s) > 0
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	i := 80
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
