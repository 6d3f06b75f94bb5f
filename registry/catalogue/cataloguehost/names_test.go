package cataloguehost_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/cataloguehost"
)

// label draws a slug (dot allowed for versions): letters of several
// scripts, digits, dashes, and characters that look like escapes.
func label(dot bool) *rapid.Generator[string] {
	chars := []rune("ae9-é語٣")
	if dot {
		chars = append(chars, '.')
	}
	return rapid.Custom(func(t *rapid.T) string {
		rs := rapid.SliceOfN(rapid.SampledFrom(chars), 1, 4).Draw(t, "runes")
		return string(rs)
	})
}

// Different <bundle slug, tool slug, version> triples never share a
// plain name, and every name is a valid MCP name when short enough.
func TestToolName_InjectiveAndValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type triple struct{ b, s, v string }
		a := triple{label(false).Draw(t, "b1"), label(false).Draw(t, "s1"), label(true).Draw(t, "v1")}
		b := triple{label(false).Draw(t, "b2"), label(false).Draw(t, "s2"), label(true).Draw(t, "v2")}
		for _, x := range []triple{a, b} {
			if catalogue.ValidateSlug(x.b) != nil || catalogue.ValidateSlug(x.s) != nil || catalogue.ValidateVersion(x.v) != nil {
				t.Skip("not a valid slug or version")
			}
		}
		na := cataloguehost.ToolName(a.b, a.s, a.v)
		nb := cataloguehost.ToolName(b.b, b.s, b.v)
		if (na == nb) != (a == b) {
			t.Fatalf("%v and %v both named %q", a, b, na)
		}
		if len(na) <= registry.MaxNameLen && !registry.ValidName(na) {
			t.Fatalf("%q is not a valid MCP name", na)
		}
	})
}
