package registry

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxNameLen is the longest tool name MCP allows.
const MaxNameLen = 128

// checkName reports whether name matches ^[A-Za-z0-9_.-]{1,128}$; the error
// wraps ErrInvalidName and says what was expected.
func checkName(name string) error {
	if ValidName(name) {
		return nil
	}
	if name == "" {
		return fmt.Errorf("%w: name is empty; expected 1 to %d characters from [A-Za-z0-9_.-]", ErrInvalidName, MaxNameLen)
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("%w: %q is %d bytes long; expected at most %d characters from [A-Za-z0-9_.-]", ErrInvalidName, name, len(name), MaxNameLen)
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return fmt.Errorf("%w: %q has %s at byte %d; expected only characters from [A-Za-z0-9_.-]", ErrInvalidName, name, badChar(name[i:]), i)
		}
	}
	return nil
}

// badChar shows the character s starts with, for an error: the character
// quoted ('é', not the first byte of its UTF-8 encoding), or the byte's
// value when s does not start with valid UTF-8 (byte 0xff).
func badChar(s string) string {
	c, size := utf8.DecodeRuneInString(s)
	if c == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("byte 0x%02x", s[0])
	}
	return fmt.Sprintf("%q", c)
}

func nameByte(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	case b == '_', b == '.', b == '-':
		return true
	}
	return false
}

// ValidName reports whether name is a valid final tool name: 1 to 128
// characters from [A-Za-z0-9_.-], as MCP requires. It does not allocate, so
// adapters can check names taken from requests with it.
func ValidName(name string) bool {
	if name == "" || len(name) > MaxNameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return false
		}
	}
	return true
}

// decorate returns the final name: prefix_name, or name when prefix is
// empty. A prefix that already ends in a separator (_ . -) is used as it
// is: MCP_TOOL_PREFIX=guide_ gives guide_add, not guide__add.
func decorate(prefix, name string) string {
	switch {
	case prefix == "":
		return name
	case strings.HasSuffix(prefix, "_"), strings.HasSuffix(prefix, "."), strings.HasSuffix(prefix, "-"):
		return prefix + name
	}
	return prefix + "_" + name
}
