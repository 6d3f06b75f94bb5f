package registry

import (
	"fmt"

	"github.com/toolpack-go/toolpack/args"
)

// checkLimits enforces the size and nesting-depth caps on raw arguments
// before any decoder sees them. It allocates only when it rejects.
func checkLimits(raw []byte, maxBytes, maxDepth int) *args.ValidationError {
	if len(raw) > maxBytes {
		return &args.ValidationError{Errors: []args.FieldError{{
			Rule:    "too_large",
			Message: fmt.Sprintf("the arguments are %d bytes; at most %d bytes are accepted", len(raw), maxBytes),
		}}}
	}
	depth := 0
	inString, escaped := false, false
	for _, b := range raw {
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
	return nil
}
