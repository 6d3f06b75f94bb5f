package httptool

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolpack-go/toolpack/internal/jsonptr"
)

// ErrExtract is wrapped by every error about the text of an extract path.
var ErrExtract = errors.New("httptool: invalid extract path")

// MaxExtractSteps caps the steps of an extract path.
const MaxExtractSteps = 64

// Path is a parsed extract path. The syntax is small on purpose:
//
//	data.items[0].name      member "data", member "items", element 0, member "name"
//	["a.b"][-1]             member "a.b" (any JSON string in brackets), the last element
//	$.data                  an optional leading "$" for the root
//
// A member name written bare is ASCII letters, digits, '_' and '-'; any
// other name is written as a JSON string in brackets. An index is a
// decimal integer; a negative index counts from the end (-1 is the last
// element). The empty path is the whole value.
type Path struct {
	steps []step
	text  string
}

type step struct {
	key   string
	index int
	isIdx bool
}

// ParsePath parses an extract path (see Path for the syntax).
func ParsePath(s string) (Path, error) {
	p := Path{text: s}
	rest := strings.TrimPrefix(s, "$")
	first := true
	for rest != "" {
		if len(p.steps) >= MaxExtractSteps {
			return Path{}, fmt.Errorf("%w: more than %d steps", ErrExtract, MaxExtractSteps)
		}
		switch {
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if len(rest) > 1 && rest[1] == '"' {
				// A JSON string: find its closing quote, honouring escapes.
				j := 2
				for j < len(rest) && rest[j] != '"' {
					if rest[j] == '\\' {
						j++
					}
					j++
				}
				if j >= len(rest) || j+1 >= len(rest) || rest[j+1] != ']' {
					return Path{}, fmt.Errorf(`%w: at byte %d: expected a JSON string then "]"`, ErrExtract, len(s)-len(rest))
				}
				var key string
				if err := json.Unmarshal([]byte(rest[1:j+1]), &key); err != nil {
					return Path{}, fmt.Errorf("%w: at byte %d: expected a JSON string: %v", ErrExtract, len(s)-len(rest), err)
				}
				p.steps = append(p.steps, step{key: key})
				rest = rest[j+2:]
				break
			}
			if end < 0 {
				return Path{}, fmt.Errorf(`%w: at byte %d: expected "]"`, ErrExtract, len(s)-len(rest))
			}
			n, err := strconv.Atoi(rest[1:end])
			if err != nil || strings.HasPrefix(rest[1:end], "+") {
				return Path{}, fmt.Errorf("%w: at byte %d: expected an integer index or a quoted name in brackets, got %q", ErrExtract, len(s)-len(rest), clip(rest[1:end]))
			}
			p.steps = append(p.steps, step{index: n, isIdx: true})
			rest = rest[end+1:]
		case rest[0] == '.' || first && !strings.HasPrefix(s, "$"):
			rest = strings.TrimPrefix(rest, ".")
			j := 0
			for j < len(rest) && isBareNameByte(rest[j]) {
				j++
			}
			if j == 0 {
				return Path{}, fmt.Errorf("%w: at byte %d: expected a member name (letters, digits, '_', '-') or a bracket", ErrExtract, len(s)-len(rest))
			}
			p.steps = append(p.steps, step{key: rest[:j]})
			rest = rest[j:]
		default:
			return Path{}, fmt.Errorf("%w: at byte %d: expected '.' or '['", ErrExtract, len(s)-len(rest))
		}
		first = false
	}
	return p, nil
}

func isBareNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// String returns the path's text.
func (p Path) String() string { return p.text }

// ExtractError reports a path step that does not match the value. Pointer
// is the JSON Pointer of the value the step was applied to.
type ExtractError struct {
	// Path is the extract path as written.
	Path string
	// Pointer is the JSON Pointer of the value the failing step was
	// applied to; "" for the root.
	Pointer string
	// Reason says why the step does not match.
	Reason string
}

// Error names the path, where it stopped and why.
func (e *ExtractError) Error() string {
	loc := e.Pointer
	if loc == "" {
		loc = "(root)"
	}
	return fmt.Sprintf("extract %q: at %s: %s", e.Path, loc, e.Reason)
}

// Apply narrows v (a value decoded from JSON: map[string]any, []any, …).
func (p Path) Apply(v any) (any, error) {
	ptr := ""
	for _, s := range p.steps {
		switch x := v.(type) {
		case map[string]any:
			if s.isIdx {
				return nil, &ExtractError{Path: p.text, Pointer: ptr, Reason: fmt.Sprintf("expected an array for index %d, got an object", s.index)}
			}
			next, ok := x[s.key]
			if !ok {
				return nil, &ExtractError{Path: p.text, Pointer: ptr, Reason: fmt.Sprintf("no member %q", clip(s.key))}
			}
			v = next
			ptr += "/" + jsonptr.Escape(s.key)
		case []any:
			if !s.isIdx {
				return nil, &ExtractError{Path: p.text, Pointer: ptr, Reason: fmt.Sprintf("expected an object for member %q, got an array", clip(s.key))}
			}
			i := s.index
			if i < 0 {
				i += len(x)
			}
			if i < 0 || i >= len(x) {
				return nil, &ExtractError{Path: p.text, Pointer: ptr, Reason: fmt.Sprintf("index %d out of range (length %d)", s.index, len(x))}
			}
			v = x[i]
			ptr += "/" + strconv.Itoa(i)
		default:
			return nil, &ExtractError{Path: p.text, Pointer: ptr, Reason: fmt.Sprintf("expected an object or array, got %s", jsonKind(v))}
		}
	}
	return v, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	default:
		return "a number"
	}
}
