package hostconfig

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Environment variable names are compared as the operating system does:
// case-insensitively on Windows (Path is PATH there), exactly elsewhere.
func TestSameEnvName_CaseInsensitiveOnWindowsOnly(t *testing.T) {
	assert.True(t, sameEnvName("windows", "Lang", "LANG"))
	assert.True(t, sameEnvName("windows", "LANG", "LANG"))
	assert.False(t, sameEnvName("windows", "LANG", "LANGUAGE"))
	assert.False(t, sameEnvName("linux", "Lang", "LANG"))
	assert.False(t, sameEnvName("darwin", "Lang", "LANG"))
	assert.True(t, sameEnvName("linux", "LANG", "LANG"))
}

// On Windows a variable in inherit_env and in env written in other
// letters, named twice in inherit_env so, or set twice in env so, is
// refused at its file, line and key (the command would get one of them,
// which is not known); elsewhere they are different variables and load.
func TestLoad_InheritEnvAlsoInEnvIgnoresCaseOnWindows(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`servers:
  kid:
    command: [srv]
    inherit_env: [Lang, TMPDIR, tmpdir]
    env: {LANG: "${V}", Mode: a, MODE: b}
`), 0o600))
	opts := LoadOptions{LookupEnv: func(string) (string, bool) { return "S3CR3T-v", true }}

	_, err := load(path, opts, "windows")
	require.ErrorIs(t, err, ErrInvalid)
	var texts []string
	for _, p := range Problems(err) {
		q := *p
		q.File = filepath.Base(q.File)
		texts = append(texts, q.Error())
	}
	assert.ElementsMatch(t, []string{
		"c.yaml:4: servers.kid.inherit_env[2]: tmpdir is named twice (as TMPDIR: on Windows names are the same whatever their case); expected each variable once",
		"c.yaml:5: servers.kid.env.MODE: MODE is set twice (as Mode: on Windows names are the same whatever their case); expected each variable once",
		"c.yaml:4: servers.kid.inherit_env: Lang is set in env too (as LANG: on Windows names are the same whatever their case); expected each variable in one of them (env for a secret, inherit_env for a plain setting passed as the host has it)",
	}, texts)
	assert.NotContains(t, err.Error(), "S3CR3T")

	cfg, err := load(path, opts, "linux")
	require.NoError(t, err)
	assert.Equal(t, []string{"Lang", "TMPDIR", "tmpdir"}, cfg.Servers["kid"].InheritEnv)
}

// An Expander checks a server entry's shape as Load does, InheritEnv's
// names compared without case on Windows only.
func TestCheckServerShape_InheritEnvCaseOnWindowsOnly(t *testing.T) {
	s := Server{Name: "x", Command: []string{"a"}, InheritEnv: []string{"Lang", "LANG"}, Env: map[string]string{"Path": "p"}}
	msgs := func(goos string) []string {
		var out []string
		for _, p := range checkServerShape(goos, Server{Name: s.Name, Command: s.Command, InheritEnv: append(s.InheritEnv, "PATH"), Env: s.Env}) {
			out = append(out, p.Error())
		}
		return out
	}
	assert.Equal(t, []string{
		"inherit_env[1]: LANG is named twice (as Lang: on Windows names are the same whatever their case); expected each variable once",
		"inherit_env[2]: PATH is set in env too (as Path: on Windows names are the same whatever their case); expected each variable in one of them (env for a secret, inherit_env for a plain setting passed as the host has it)",
	}, msgs("windows"))
	assert.Empty(t, msgs("linux"))
}
