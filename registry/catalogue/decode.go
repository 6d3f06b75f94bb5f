package catalogue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/jsontext"
)

// Size caps of the bodies the decoders read. A longer body is refused
// without being read further.
const (
	// MaxBundleBodyBytes caps a bundle PUT body.
	MaxBundleBodyBytes = 64 << 10
	// MaxToolBodyBytes caps a tool PUT body (schemas included).
	MaxToolBodyBytes = 1 << 20
	// MaxPatchBodyBytes caps a PATCH body ({"isEnabled": …}).
	MaxPatchBodyBytes = 1 << 10
)

// DecodeBundleSpec reads a bundle PUT body: a JSON object with exactly the
// fields slug, displayName, isEnabled (required) and description
// (optional). Text that is not UTF-8 (named by field and byte offset),
// unknown or repeated fields, wrong types, a body above
// [MaxBundleBodyBytes] and every rule of [BundleSpec.Validate] are reported
// together in one [*ValidationError].
func DecodeBundleSpec(r io.Reader) (BundleSpec, error) {
	var s BundleSpec
	var p problems
	obj := readBody(&p, r, MaxBundleBodyBytes)
	if obj == nil {
		return BundleSpec{}, p.err()
	}
	obj.str(&p, "slug", true, &s.Slug)
	obj.str(&p, "displayName", true, &s.DisplayName)
	obj.str(&p, "description", false, &s.Description)
	obj.boolean(&p, "isEnabled", true, &s.IsEnabled)
	obj.rejectUnknown(&p)
	p.mergeNew(s.Validate())
	if err := p.err(); err != nil {
		return BundleSpec{}, err
	}
	return s, nil
}

// DecodeToolSpec reads a tool PUT body (the shape of [ToolSpec]; required:
// displayName, isEnabled, type, argSchema, and httpImpl, goImpl or
// stepsImpl to match the type). Text that is not UTF-8 (named by field and
// byte offset), unknown or repeated fields at any depth, wrong types, nesting
// deeper than [MaxJSONDepth], a body above [MaxToolBodyBytes] and every
// rule of [ToolSpec.Validate] and [ToolSpec.CheckCredentials] (it reads
// what is being written) are reported together in one [*ValidationError].
func DecodeToolSpec(r io.Reader) (ToolSpec, error) {
	var s ToolSpec
	var p problems
	obj := readBody(&p, r, MaxToolBodyBytes)
	if obj == nil {
		return ToolSpec{}, p.err()
	}
	obj.str(&p, "displayName", true, &s.DisplayName)
	obj.str(&p, "description", false, &s.Description)
	obj.strList(&p, "tags", &s.Tags)
	obj.boolean(&p, "isEnabled", true, &s.IsEnabled)
	var typ string
	obj.str(&p, "type", true, &typ)
	s.Type = ToolType(typ)
	obj.schema(&p, "argSchema", true, &s.ArgSchema)
	obj.schema(&p, "outputSchema", false, &s.OutputSchema)
	if h := obj.object(&p, "httpImpl"); h != nil {
		s.HTTPImpl = decodeHTTPImpl(&p, h)
	}
	if g := obj.object(&p, "goImpl"); g != nil {
		s.GoImpl = &GoImpl{}
		g.str(&p, "func", true, &s.GoImpl.Func)
		g.rejectUnknown(&p)
	}
	if st := obj.object(&p, "stepsImpl"); st != nil {
		s.StepsImpl = &StepsImpl{}
		st.str(&p, "body", true, &s.StepsImpl.Body)
		st.rejectUnknown(&p)
	}
	obj.rejectUnknown(&p)
	p.mergeNew(s.Validate())
	p.mergeNew(s.CheckCredentials())
	if err := p.err(); err != nil {
		return ToolSpec{}, err
	}
	return s, nil
}

// DecodeEnabledPatch reads a PATCH body: exactly {"isEnabled": true|false}
// (UTF-8, as every JSON body must be).
func DecodeEnabledPatch(r io.Reader) (bool, error) {
	var p problems
	var on bool
	obj := readBody(&p, r, MaxPatchBodyBytes)
	if obj == nil {
		return false, p.err()
	}
	obj.boolean(&p, "isEnabled", true, &on)
	obj.rejectUnknown(&p)
	return on, p.err()
}

func decodeHTTPImpl(p *problems, o *object) *HTTPImpl {
	h := &HTTPImpl{}
	if rq := o.object(p, "request"); rq != nil {
		r := &h.Request
		rq.str(p, "method", true, &r.Method)
		rq.str(p, "urlTemplate", true, &r.URLTemplate)
		rq.strMap(p, "query", &r.Query)
		rq.strMap(p, "headers", &r.Headers)
		rq.str(p, "body", false, &r.Body)
		if a := rq.object(p, "auth"); a != nil {
			r.Auth = &HTTPAuth{}
			au := r.Auth
			a.str(p, "type", true, &au.Type)
			for _, f := range []struct {
				name string
				dst  *string
			}{{"token", &au.Token}, {"username", &au.Username}, {"password", &au.Password},
				{"in", &au.In}, {"name", &au.Name}, {"value", &au.Value}, {"secret", &au.Secret},
				{"algorithm", &au.Algorithm}, {"tokenURL", &au.TokenURL}, {"clientID", &au.ClientID},
				{"clientSecret", &au.ClientSecret}} {
				a.str(p, f.name, false, f.dst)
			}
			a.strList(p, "scopes", &au.Scopes)
			a.rejectUnknown(p)
		}
		rq.rejectUnknown(p)
	} else if _, ok := o.members["request"]; !ok {
		p.add(child(o.path, "request"), "expected an object, got nothing")
	}
	if rs := o.object(p, "response"); rs != nil {
		rs.str(p, "encoding", false, &h.Response.Encoding)
		rs.str(p, "extract", false, &h.Response.Extract)
		rs.rejectUnknown(p)
	}
	if l := o.object(p, "limits"); l != nil {
		lim := &h.Limits
		l.str(p, "timeout", false, &lim.Timeout)
		l.integer(p, "maxRequestBytes", &lim.MaxRequestBytes)
		l.integer(p, "maxResponseBytes", &lim.MaxResponseBytes)
		var retries, perMin int64
		l.integer(p, "maxRetries", &retries)
		l.integer(p, "maxCallsPerMinute", &perMin)
		if retries > 1<<31 || perMin > 1<<31 || retries < -1<<31 || perMin < -1<<31 {
			p.add(child(l.path, "maxRetries"), "expected a small integer")
		} else {
			lim.MaxRetries, lim.MaxCallsPerMinute = int(retries), int(perMin)
		}
		l.rejectUnknown(p)
	}
	o.rejectUnknown(p)
	return h
}

// readBody reads at most max bytes and parses the top-level object; nil
// after a problem that prevents reading fields.
func readBody(p *problems, r io.Reader, max int64) *object {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		p.add("", "expected a readable body: %v", err)
		return nil
	}
	if int64(len(data)) > max {
		p.add("", "expected a body of at most %d bytes", max)
		return nil
	}
	if !json.Valid(data) {
		p.add("", "expected one JSON object: %s", jsontext.SyntaxProblem(data))
		return nil
	}
	if d := jsontext.Depth(data); d > MaxJSONDepth {
		p.add("", "expected JSON nested at most %d levels deep, got %d", MaxJSONDepth, d)
		return nil
	}
	if !checkUTF8(p, "", data) {
		return nil
	}
	return parseObject(p, "", data)
}

// checkUTF8 reports JSON text (data, found at path) that is not UTF-8, as
// RFC 8259 requires and encoding/json would silently repair with U+FFFD,
// under the field whose string holds the bad bytes (the object, for a
// key's) and with their byte offset, never quoting them. It reports
// whether data is valid UTF-8.
func checkUTF8(p *problems, path string, data []byte) bool {
	field, offset, key, bad := args.FindInvalidUTF8(data)
	if !bad {
		return true
	}
	if field == "" {
		field = path
	} else if path != "" {
		if field[0] == '[' {
			field = path + field
		} else {
			field = path + "." + field
		}
	}
	what := "text"
	if key {
		what = "keys"
	}
	p.add(field, "expected %s of valid UTF-8 (JSON text must be UTF-8), got bytes that are not at byte %d", what, offset)
	return false
}

// object is a JSON object being read field by field.
type object struct {
	path    string
	members map[string]json.RawMessage
	taken   map[string]bool
}

// parseObject reads the members of a JSON object (valid JSON), reporting
// repeated names; nil if raw is not an object.
func parseObject(p *problems, path string, raw json.RawMessage) *object {
	if jsontext.Kind(raw) != "an object" {
		p.add(path, "expected a JSON object, got %s", jsontext.Kind(raw))
		return nil
	}
	o := &object{path: path, members: map[string]json.RawMessage{}, taken: map[string]bool{}}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		p.add(path, "expected a JSON object: %v", err)
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			p.add(path, "expected a JSON object: %v", err)
			return nil
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			p.add(child(path, name), "expected a JSON value: %v", err)
			return nil
		}
		if _, dup := o.members[name]; dup {
			p.add(child(path, name), "expected each field once, got it repeated")
			continue
		}
		o.members[name] = v
	}
	return o
}

// get returns a member, marking it known; null counts as absent.
func (o *object) get(p *problems, name string, required bool) (json.RawMessage, bool) {
	o.taken[name] = true
	v, ok := o.members[name]
	if ok && jsontext.Kind(v) == "null" {
		ok = false
	}
	if !ok && required {
		p.add(child(o.path, name), "expected a value, got nothing (the field is required)")
	}
	return v, ok
}

func (o *object) str(p *problems, name string, required bool, dst *string) {
	v, ok := o.get(p, name, required)
	if !ok {
		return
	}
	if jsontext.Kind(v) != "a string" || json.Unmarshal(v, dst) != nil {
		p.add(child(o.path, name), "expected a string, got %s", jsontext.Kind(v))
	}
}

func (o *object) boolean(p *problems, name string, required bool, dst *bool) {
	v, ok := o.get(p, name, required)
	if !ok {
		return
	}
	if jsontext.Kind(v) != "a boolean" || json.Unmarshal(v, dst) != nil {
		p.add(child(o.path, name), "expected true or false, got %s", jsontext.Kind(v))
	}
}

func (o *object) integer(p *problems, name string, dst *int64) {
	v, ok := o.get(p, name, false)
	if !ok {
		return
	}
	if jsontext.Kind(v) != "a number" || json.Unmarshal(v, dst) != nil {
		p.add(child(o.path, name), "expected an integer, got %s", describe(v))
	}
}

func describe(v json.RawMessage) string {
	if k := jsontext.Kind(v); k != "a number" {
		return k
	}
	return "the number " + clip(string(v))
}

func (o *object) strList(p *problems, name string, dst *[]string) {
	v, ok := o.get(p, name, false)
	if !ok {
		return
	}
	var items []json.RawMessage
	if jsontext.Kind(v) != "an array" || json.Unmarshal(v, &items) != nil {
		p.add(child(o.path, name), "expected an array of strings, got %s", jsontext.Kind(v))
		return
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		var s string
		if jsontext.Kind(it) != "a string" || json.Unmarshal(it, &s) != nil {
			p.add(fmt.Sprintf("%s[%d]", child(o.path, name), i), "expected a string, got %s", jsontext.Kind(it))
			continue
		}
		out = append(out, s)
	}
	*dst = out
}

func (o *object) strMap(p *problems, name string, dst *map[string]string) {
	v, ok := o.get(p, name, false)
	if !ok {
		return
	}
	m := parseObject(p, child(o.path, name), v)
	if m == nil {
		return
	}
	out := make(map[string]string, len(m.members))
	for k, item := range m.members {
		var s string
		if jsontext.Kind(item) != "a string" || json.Unmarshal(item, &s) != nil {
			p.add(fmt.Sprintf("%s[%q]", child(o.path, name), k), "expected a string, got %s", jsontext.Kind(item))
			continue
		}
		out[k] = s
	}
	*dst = out
}

func (o *object) schema(p *problems, name string, required bool, dst *json.RawMessage) {
	v, ok := o.get(p, name, required)
	if !ok {
		return
	}
	if jsontext.Kind(v) != "an object" {
		p.add(child(o.path, name), "expected a JSON Schema object, got %s", jsontext.Kind(v))
		return
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		p.add(child(o.path, name), "expected JSON: %v", err)
		return
	}
	*dst = buf.Bytes()
}

// object reads a nested object member; nil if absent or not an object.
func (o *object) object(p *problems, name string) *object {
	v, ok := o.get(p, name, false)
	if !ok {
		return nil
	}
	return parseObject(p, child(o.path, name), v)
}

// rejectUnknown reports every member no reader asked for.
func (o *object) rejectUnknown(p *problems) {
	known := make([]string, 0, len(o.taken))
	for k := range o.taken {
		known = append(known, k)
	}
	sort.Strings(known)
	var unknown []string
	for k := range o.members {
		if !o.taken[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		p.add(child(o.path, k), "unknown field; expected one of: %s", strings.Join(known, ", "))
	}
}
