package registry

import (
	"fmt"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/args"
)

// checkLimits enforces the size and nesting-depth caps and the encoding
// (JSON text must be UTF-8: args.CheckUTF8, rule invalid_utf8, naming the
// field) on raw arguments before any decoder sees them, so that no tool —
// one with Tool.Decode or one reading Call.Raw itself — is handed bytes
// encoding/json would silently turn into U+FFFD. The encoding costs
// nothing on ASCII: the depth scan notes whether any byte is above 0x7F,
// and only then is utf8.Valid run. It allocates only when it rejects.
func checkLimits(raw []byte, maxBytes, maxDepth int) *args.ValidationError {
	if len(raw) > maxBytes {
		return &args.ValidationError{Errors: []args.FieldError{{
			Rule:    "too_large",
			Message: fmt.Sprintf("the arguments are %d bytes; at most %d bytes are accepted", len(raw), maxBytes),
		}}}
	}
	depth := 0
	inString, escaped := false, false
	var high byte // every byte ORed: ≥ 0x80 when any is outside ASCII
	for _, b := range raw {
		high |= b
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > maxDepth {
				return &args.ValidationError{Errors: []args.FieldError{{
					Rule:    "too_deep",
					Message: fmt.Sprintf("the arguments nest objects and arrays more than %d levels deep", maxDepth),
				}}}
			}
		case '}', ']':
			// A stray closer must not buy extra depth for what follows.
			if depth > 0 {
				depth--
			}
		}
	}
	if high >= utf8.RuneSelf {
		return args.CheckUTF8(raw)
	}
	return nil
}
