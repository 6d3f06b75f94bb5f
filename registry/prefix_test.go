package registry

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// unsetEnv removes key for the test and restores it afterwards.
func unsetEnv(t *testing.T, key string) {
	t.Helper()
	t.Setenv(key, "") // registers the restore
	require.NoError(t, os.Unsetenv(key))
}

func finalName(t *testing.T, r *Registry, tool *Tool) string {
	t.Helper()
	require.NoError(t, r.Add(tool))
	list := r.List()
	require.Len(t, list, 1)
	return list[0].Name
}

// Seed 004 "No default prefix": without Options.Prefix the prefix comes from
// MCP_TOOL_PREFIX.
func TestPrefix_DefaultFromEnv(t *testing.T) {
	t.Setenv(EnvToolPrefix, "guide")
	r := New(Options{})
	assert.Equal(t, "guide", r.Prefix())
	assert.Equal(t, "guide_echo", finalName(t, r, rawTool("echo", okHandler(1))))
}

// Seed 004 "No default prefix": empty string when the variable is unset.
func TestPrefix_EmptyWhenEnvUnset(t *testing.T) {
	unsetEnv(t, EnvToolPrefix)
	r := New(Options{})
	assert.Equal(t, "", r.Prefix())
	assert.Equal(t, "echo", finalName(t, r, rawTool("echo", okHandler(1))))
}

// The variable is read once, at New.
func TestPrefix_EnvReadOnceAtNew(t *testing.T) {
	t.Setenv(EnvToolPrefix, "first")
	r := New(Options{})
	t.Setenv(EnvToolPrefix, "second")
	assert.Equal(t, "first_echo", finalName(t, r, rawTool("echo", okHandler(1))))
}

// Options.Prefix overrides the environment.
func TestPrefix_OptionsOverrideEnv(t *testing.T) {
	t.Setenv(EnvToolPrefix, "env")
	r := New(Options{Prefix: new("opt")})
	assert.Equal(t, "opt_echo", finalName(t, r, rawTool("echo", okHandler(1))))
}

// Seed 004 "Per-tool prefix override": a tool's prefix wins over the default.
func TestPrefix_PerToolOverride(t *testing.T) {
	t.Setenv(EnvToolPrefix, "guide")
	r := New(Options{})
	tool := rawTool("echo", okHandler(1))
	tool.Prefix = new("mine")
	assert.Equal(t, "mine_echo", finalName(t, r, tool))
}

// Seed 004 "Per-tool prefix override": an empty per-tool prefix disables it.
func TestPrefix_PerToolEmptyDisables(t *testing.T) {
	t.Setenv(EnvToolPrefix, "guide")
	r := New(Options{})
	tool := rawTool("echo", okHandler(1))
	tool.Prefix = new("")
	assert.Equal(t, "echo", finalName(t, r, tool))
}

// Seed 004 "Tool name prefixing": the final name is prefix_name, Lookup and
// Invoke use it, BaseName keeps the undecorated name and the caller's Tool is
// not modified.
func TestPrefix_FinalNameIsPrefixUnderscoreName(t *testing.T) {
	r := New(Options{Prefix: new("guide"), Logger: noPrefix().Logger})
	tool := rawTool("get_content", okHandler("x"))
	require.NoError(t, r.Add(tool))
	got, ok := r.Lookup("guide_get_content")
	require.True(t, ok)
	assert.Equal(t, "guide_get_content", got.Name)
	assert.Equal(t, "get_content", got.BaseName)
	assert.Equal(t, "get_content", tool.Name, "the caller's Tool must not change")
	_, ok = r.Lookup("get_content")
	assert.False(t, ok)
	res, err := r.Invoke(t.Context(), "guide_get_content", nil)
	require.NoError(t, err)
	assert.Equal(t, "x", res.Value)
}

// Seed 004 "Default prefix configuration": a host default (FallbackPrefix)
// applies when MCP_TOOL_PREFIX is unset.
func TestEnv_FallbackPrefixWhenUnset(t *testing.T) {
	unsetEnv(t, EnvToolPrefix)
	r := New(Options{FallbackPrefix: "guide"})
	assert.Equal(t, "guide_echo", finalName(t, r, rawTool("echo", okHandler(1))))
}

// Seed 004 "User-provided prefix preserved": a set MCP_TOOL_PREFIX wins over
// the host default, even when it is set to the empty string.
func TestEnv_UserProvidedPrefixPreserved(t *testing.T) {
	t.Setenv(EnvToolPrefix, "user")
	r := New(Options{FallbackPrefix: "guide"})
	assert.Equal(t, "user_echo", finalName(t, r, rawTool("echo", okHandler(1))))

	t.Setenv(EnvToolPrefix, "")
	r = New(Options{FallbackPrefix: "guide"})
	assert.Equal(t, "echo", finalName(t, r, rawTool("echo", okHandler(1))))
}

// An invalid final name is ErrInvalidName at registration, with a message
// saying what was expected.
func TestName_InvalidFinalNameRejected(t *testing.T) {
	cases := []struct {
		name, prefix string
	}{
		{"", ""},
		{"has space", ""},
		{"slash/name", ""},
		{"ünicode", ""},
		{strings.Repeat("a", 129), ""},
		{strings.Repeat("a", 120), "prefix12"}, // 129 with the prefix
		{"ok", "bad prefix"},
	}
	for _, tc := range cases {
		r := New(Options{Prefix: new(tc.prefix), Logger: noPrefix().Logger})
		err := r.Add(rawTool(tc.name, okHandler(1)))
		require.ErrorIs(t, err, ErrInvalidName, "name %q prefix %q", tc.name, tc.prefix)
		assert.Contains(t, err.Error(), "[A-Za-z0-9_.-]")
		assert.Empty(t, r.List())
	}
	r := New(Options{Prefix: new("p"), Logger: noPrefix().Logger})
	require.NoError(t, r.Add(rawTool(strings.Repeat("a", 126), okHandler(1))), "exactly 128 is allowed")
	require.NoError(t, r.Add(rawTool("ot.tools-v1", okHandler(1))), "dots and dashes are allowed")
}

// An invalid name's error shows the offending character itself, at its
// byte offset ('é', not the first byte of its UTF-8 encoding shown as
// 'Ã'), and a byte that is not UTF-8 as its value: for a tool's name (Add)
// and an alias's (SetAliases) alike.
func TestName_InvalidCharacterShownAsWritten(t *testing.T) {
	cases := map[string]string{
		"é":        `"é" has 'é' at byte 0;`,
		"ab€c":     `"ab€c" has '€' at byte 2;`,
		"a b":      `"a b" has ' ' at byte 1;`,
		"ok\xffno": `"ok\xffno" has byte 0xff at byte 2;`,
		"x\xc3":    `"x\xc3" has byte 0xc3 at byte 1;`, // a rune cut short
		"🙂":        `"🙂" has '🙂' at byte 0;`,
	}
	for name, want := range cases {
		r := New(noPrefix())
		err := r.Add(rawTool(name, okHandler(1)))
		require.ErrorIs(t, err, ErrInvalidName, "tool %q", name)
		assert.Contains(t, err.Error(), want, "tool %q", name)
		assert.NotContains(t, err.Error(), "Ã", "tool %q", name)

		require.NoError(t, r.Add(rawTool("add", okHandler(1))))
		err = r.SetAliases(map[string]string{name: "add"})
		require.ErrorIs(t, err, ErrInvalidName, "alias %q", name)
		assert.Contains(t, err.Error(), want, "alias %q", name)
		assert.Contains(t, err.Error(), "expected only characters from [A-Za-z0-9_.-]", "alias %q", name)
	}
}

var mcpName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// ValidName agrees with MCP's regular expression on arbitrary strings.
func TestName_ValidNameMatchesMCPPattern(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(
			rapid.String(),
			rapid.StringMatching(`[A-Za-z0-9_.-]{0,130}`),
			rapid.StringMatching(`[A-Za-z0-9_.\- /:]{1,10}`),
		).Draw(t, "name")
		if got, want := ValidName(s), mcpName.MatchString(s); got != want {
			t.Fatalf("ValidName(%q) = %v, regexp says %v", s, got, want)
		}
	})
}

// A prefix that already ends in a separator is not given a second one:
// MCP_TOOL_PREFIX=guide_ yields guide_add, not guide__add.
func TestPrefix_TrailingSeparatorNotDoubled(t *testing.T) {
	for prefix, want := range map[string]string{"guide_": "guide_add", "guide.": "guide.add", "guide-": "guide-add", "guide": "guide_add"} {
		r := New(Options{Prefix: new(prefix), Logger: noPrefix().Logger})
		require.NoError(t, r.Add(rawTool("add", okHandler(1))))
		_, ok := r.Lookup(want)
		assert.True(t, ok, "prefix %q: want %q, have %v", prefix, want, r.List()[0].Name)
	}
	t.Setenv(EnvToolPrefix, "guide_")
	r := New(Options{Logger: noPrefix().Logger})
	require.NoError(t, r.Add(rawTool("add", okHandler(1))))
	assert.Equal(t, "guide_add", r.List()[0].Name)
}
