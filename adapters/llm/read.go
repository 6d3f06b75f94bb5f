package llm

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/toolpack-go/toolpack/internal/textcut"
)

// reader walks call arguments along the tool's own input schema: in
// strict mode it removes the nulls strict mode made the model send for
// optional fields; in lenient mode it reads strings holding numbers,
// booleans, objects or arrays as those where the schema wants them, and
// notes each change.
type reader struct {
	lenient, strict bool
	changed         bool
	notes           []string
}

func (r *reader) value(v any, schema map[string]any, path string) any {
	if r.lenient {
		v = r.coerce(v, schema, path)
	}
	if s, ok := v.(string); ok && r.strict && isObjectSchema(schema) && freeForm(schema) {
		// Strict mode sent this free-form object as its JSON text.
		if obj, err := decodeJSON([]byte(s)); err == nil {
			if _, isObj := obj.(map[string]any); isObj {
				r.changed = true
				return obj
			}
		}
	}
	switch val := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		if props == nil {
			return val
		}
		req := requiredSet(schema)
		for k, e := range val {
			ps, ok := props[k].(map[string]any)
			if !ok {
				continue
			}
			if e == nil && r.strict && !req[k] && !acceptsNull(ps) {
				delete(val, k)
				r.changed = true
				continue
			}
			val[k] = r.value(e, ps, joinPath(path, k))
		}
	case []any:
		items, _ := schema["items"].(map[string]any)
		if items == nil {
			return val
		}
		for i, e := range val {
			val[i] = r.value(e, items, fmt.Sprintf("%s[%d]", path, i))
		}
	}
	return v
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// coerce reads a string as the one JSON type the schema wants when the
// schema does not take strings there.
func (r *reader) coerce(v any, schema map[string]any, path string) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	ts, typed := types(schema)
	if !typed || slices.Contains(ts, "string") {
		return v
	}
	field := path
	if field == "" {
		field = "(arguments)"
	}
	t := strings.TrimSpace(s)
	for _, want := range ts {
		var got any
		switch want {
		case "integer":
			if n, ok := jsonNumber(t); ok {
				if _, err := n.Int64(); err == nil {
					got = n
				} else if f, err := n.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
					got = json.Number(strconv.FormatInt(int64(f), 10))
				}
			}
		case "number":
			if n, ok := jsonNumber(t); ok {
				got = n
			}
		case "boolean":
			switch strings.ToLower(t) {
			case "true":
				got = true
			case "false":
				got = false
			}
		case "object", "array":
			if inner, err := decodeJSON([]byte(t)); err == nil {
				if _, isObj := inner.(map[string]any); isObj == (want == "object") {
					if _, isArr := inner.([]any); isArr == (want == "array") {
						got = inner
					}
				}
			}
		}
		if got != nil {
			r.changed = true
			r.notes = append(r.notes, fmt.Sprintf("%s: the string %s was read as %s %s", field, strconv.Quote(textcut.Runes(s, 40)), article(want), want))
			return got
		}
	}
	return v
}

func article(t string) string {
	if t == "integer" || t == "object" || t == "array" {
		return "an"
	}
	return "a"
}

// jsonNumber reads s as one JSON number literal.
func jsonNumber(s string) (json.Number, bool) {
	v, err := decodeJSON([]byte(s))
	if err != nil {
		return "", false
	}
	n, ok := v.(json.Number)
	return n, ok
}
