package bundlezip

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// object is one JSON object of an entry, read field by field: repeated
// and unknown fields are problems, like in the catalogue's PUT bodies.
type object struct {
	entry, path string
	members     map[string]json.RawMessage
	taken       map[string]bool
}

func field(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// parseObject reads the members of a JSON object; nil after a problem.
// Text that is not UTF-8 (RFC 8259; encoding/json would make U+FFFD of
// it) is a problem naming the field that holds the bytes and their byte
// offset in raw, never quoting them.
func parseObject(p *problems, entry, path string, raw []byte) *object {
	if f, offset, key, bad := args.FindInvalidUTF8(raw); bad {
		what := "text"
		if key {
			what = "keys"
		}
		if f == "" {
			f = path
		} else if path != "" {
			f = under(path, f)
		}
		p.add(entry, f, "expected %s of valid UTF-8 (JSON text must be UTF-8), got bytes that are not at byte %d", what, offset)
		return nil
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		p.add(entry, path, "expected a JSON object")
		return nil
	}
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			p.add(entry, path, "expected JSON: %v at byte %d", se, se.Offset)
		} else {
			p.add(entry, path, "expected JSON")
		}
		return nil
	}
	o := &object{entry: entry, path: path, members: map[string]json.RawMessage{}, taken: map[string]bool{}}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		p.add(entry, path, "expected a JSON object: %v", err)
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			p.add(entry, path, "expected a JSON object: %v", err)
			return nil
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			p.add(entry, field(path, name), "expected a JSON value: %v", err)
			return nil
		}
		if _, dup := o.members[name]; dup {
			p.add(entry, field(path, name), "expected each field once, got it repeated")
			continue
		}
		o.members[name] = v
	}
	return o
}

// get returns a member (null counts as absent), reporting a missing
// required one.
func (o *object) get(p *problems, name string, required bool) (json.RawMessage, bool) {
	o.taken[name] = true
	v, ok := o.members[name]
	if ok && string(v) == "null" {
		ok = false
	}
	if !ok && required {
		p.add(o.entry, field(o.path, name), "expected a value, got nothing (the field is required)")
	}
	return v, ok
}

func (o *object) str(p *problems, name string, dst *string) bool {
	v, ok := o.get(p, name, true)
	if !ok {
		return false
	}
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, dst) != nil {
		p.add(o.entry, field(o.path, name), "expected a string")
		return false
	}
	return true
}

func (o *object) id(p *problems, name string, dst *uuid.UUID) {
	var s string
	if !o.str(p, name, &s) {
		return
	}
	id, err := catalogue.ParseID(s)
	if err != nil {
		p.add(o.entry, field(o.path, name), "%v", err)
		return
	}
	*dst = id
}

func (o *object) stamp(p *problems, name string, required bool, dst **time.Time) {
	v, ok := o.get(p, name, required)
	if !ok {
		return
	}
	var s string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		p.add(o.entry, field(o.path, name), "expected an RFC 3339 timestamp string")
		return
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		p.add(o.entry, field(o.path, name), "expected an RFC 3339 timestamp, got %q", clip(s))
		return
	}
	*dst = &t
}

func (o *object) integer(p *problems, name string, dst *int64) bool {
	v, ok := o.get(p, name, true)
	if !ok {
		return false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		p.add(o.entry, field(o.path, name), "expected an integer, got %s", clip(string(v)))
		return false
	}
	*dst = n
	return true
}

// rejectUnknown reports every member no reader asked for.
func (o *object) rejectUnknown(p *problems, known string) {
	var unknown []string
	for name := range o.members {
		if !o.taken[name] {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		p.add(o.entry, field(o.path, name), "unknown field; expected one of: %s", known)
	}
}

// spec hands a nested object to one of the catalogue's PUT decoders (so
// an archive obeys exactly the rules of a PUT) and prefixes its fields.
func (o *object) spec(p *problems, name string, decode func([]byte) error) {
	v, ok := o.get(p, name, true)
	if !ok {
		return
	}
	// Indentation is not part of the body the PUT caps are about.
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		p.add(o.entry, field(o.path, name), "expected JSON: %v", err)
		return
	}
	err := decode(buf.Bytes())
	var ve *catalogue.ValidationError
	if errors.As(err, &ve) {
		for _, f := range ve.Fields {
			p.add(o.entry, under(field(o.path, name), f.Field), "%s", f.Problem)
		}
	} else if err != nil {
		p.add(o.entry, field(o.path, name), "%v", err)
	}
}

func under(path, f string) string {
	switch {
	case f == "":
		return path
	case f[0] == '[':
		return path + f
	}
	return path + "." + f
}

func decodeManifest(p *problems, data []byte) (catalogue.Bundle, []string) {
	var b catalogue.Bundle
	o := parseObject(p, ManifestName, "", data)
	if o == nil {
		return b, nil
	}
	var format string
	if o.str(p, "format", &format) && format != Format {
		p.add(ManifestName, "format", "expected %q, got %q", Format, clip(format))
	}
	var version int64
	if o.integer(p, "formatVersion", &version) && version != FormatVersion {
		p.add(ManifestName, "formatVersion", "expected %d (the version this program reads), got %d", FormatVersion, version)
	}
	var names []string
	if v, ok := o.get(p, "tools", true); ok {
		if err := json.Unmarshal(v, &names); err != nil || v[0] != '[' {
			p.add(ManifestName, "tools", "expected an array of entry names (strings)")
			names = nil
		}
	}
	if v, ok := o.get(p, "bundle", true); ok {
		if bo := parseObject(p, ManifestName, "bundle", v); bo != nil {
			bo.id(p, "id", &b.ID)
			var created, modified *time.Time
			bo.stamp(p, "createdAt", true, &created)
			bo.stamp(p, "modifiedAt", true, &modified)
			bo.stamp(p, "softDeletedAt", false, &b.SoftDeletedAt)
			if created != nil {
				b.CreatedAt = *created
			}
			if modified != nil {
				b.ModifiedAt = *modified
			}
			bo.spec(p, "spec", func(raw []byte) (err error) {
				b.BundleSpec, err = catalogue.DecodeBundleSpec(bytes.NewReader(raw))
				return err
			})
			bo.rejectUnknown(p, "id, createdAt, modifiedAt, softDeletedAt, spec")
		}
	}
	o.rejectUnknown(p, "format, formatVersion, bundle, tools")
	return b, names
}

func decodeTool(p *problems, name string, data []byte, bundleID uuid.UUID) catalogue.Tool {
	t := catalogue.Tool{BundleID: bundleID}
	o := parseObject(p, name, "", data)
	if o == nil {
		return t
	}
	o.id(p, "id", &t.ID)
	okSlug, okVersion := o.str(p, "slug", &t.Slug), o.str(p, "version", &t.Version)
	if okSlug {
		if err := catalogue.ValidateSlug(t.Slug); err != nil {
			p.add(name, "slug", "%v", err)
			okSlug = false
		}
	}
	if okVersion {
		if err := catalogue.ValidateVersion(t.Version); err != nil {
			p.add(name, "version", "%v", err)
			okVersion = false
		}
	}
	if okSlug && okVersion {
		if want := ToolEntryName(t.Slug, t.Version); want != name {
			p.add(name, "", "expected the entry of %s@%s to be named %q", t.Slug, t.Version, want)
		}
	}
	var created, modified *time.Time
	o.stamp(p, "createdAt", true, &created)
	o.stamp(p, "modifiedAt", true, &modified)
	o.stamp(p, "lastCalledAt", false, &t.LastCalledAt)
	if created != nil {
		t.CreatedAt = *created
	}
	if modified != nil {
		t.ModifiedAt = *modified
	}
	o.integer(p, "callCount", &t.CallCount)
	o.spec(p, "spec", func(raw []byte) (err error) {
		t.ToolSpec, err = catalogue.DecodeToolSpec(bytes.NewReader(raw))
		return err
	})
	o.rejectUnknown(p, "id, slug, version, createdAt, modifiedAt, lastCalledAt, callCount, spec")
	return t
}

// recordFields are the fields of a record outside its spec.
var recordFields = map[string]bool{"id": true, "bundleID": true, "slug": true, "version": true, "builtIn": true,
	"createdAt": true, "modifiedAt": true, "softDeletedAt": true, "lastCalledAt": true, "callCount": true}

// renameFields turns the store's field names ("bundle.slug",
// "tools[3].argSchema") into the archive's ("bundle.json:bundle.spec.slug",
// "tools/x@1.json:spec.argSchema").
func renameFields(err error, names []string) error {
	var ve *catalogue.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	out := &catalogue.ValidationError{Fields: make([]catalogue.FieldError, len(ve.Fields))}
	for i, f := range ve.Fields {
		out.Fields[i] = catalogue.FieldError{Field: renameField(f.Field, names), Problem: f.Problem}
	}
	return out
}

func renameField(f string, names []string) string {
	if rest, ok := strings.CutPrefix(f, "bundle."); ok {
		if recordFields[head(rest)] {
			return ManifestName + ":bundle." + rest
		}
		return ManifestName + ":bundle.spec." + rest
	}
	if rest, ok := strings.CutPrefix(f, "tools["); ok {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return f
		}
		i, err := strconv.Atoi(rest[:end])
		if err != nil || i < 0 || i >= len(names) {
			return f
		}
		rest = strings.TrimPrefix(rest[end+1:], ".")
		switch {
		case rest == "":
			return names[i]
		case recordFields[head(rest)]:
			return names[i] + ":" + rest
		}
		return names[i] + ":spec." + rest
	}
	return f
}

func head(path string) string {
	if i := strings.IndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return path
}
