package mcpproxy

import (
	"runtime"
	"slices"
	"sort"
	"strings"
)

// inheritedPOSIX and inheritedWindows are the variables a Command server
// inherits from the host's environment, the lists of the official MCP
// SDKs (Python mcp.client.stdio.get_default_environment, TypeScript
// getDefaultEnvironment): what a program needs to run and find its files,
// nothing that is likely to be a credential.
var (
	inheritedPOSIX   = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
	inheritedWindows = []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH",
		"PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"}
)

// InheritedEnv returns the names of the environment variables a Command
// server inherits from the host's process: on Windows APPDATA, HOMEDRIVE,
// HOMEPATH, LOCALAPPDATA, PATH, PROCESSOR_ARCHITECTURE, SYSTEMDRIVE,
// SYSTEMROOT, TEMP, USERNAME, USERPROFILE and PROGRAMFILES, elsewhere
// HOME, LOGNAME, PATH, SHELL, TERM and USER. Every other variable must be
// named in Config.InheritEnv (a plain setting, passed as it is) or given
// in Config.Env (a secret).
func InheritedEnv() []string {
	if runtime.GOOS == "windows" {
		return append([]string(nil), inheritedWindows...)
	}
	return append([]string(nil), inheritedPOSIX...)
}

// commandEnv is the environment of a Command server: the inherited
// variables (InheritedEnv, then inherit, each once) that lookup finds,
// except values starting with "()" (exported shell functions, which the
// SDKs skip too), then env, which wins over an inherited variable of the
// same name. The result is never nil: a nil exec.Cmd.Env would give the
// child the whole environment of the host.
func commandEnv(env map[string]string, inherit []string, lookup func(string) (string, bool)) []string {
	out := make([]string, 0, len(inheritedPOSIX)+len(inherit)+len(env))
	var seen []string
	for _, name := range append(InheritedEnv(), inherit...) {
		if configured(env, name) || slices.ContainsFunc(seen, func(s string) bool { return sameName(s, name) }) {
			continue
		}
		seen = append(seen, name)
		v, ok := lookup(name)
		if !ok || strings.HasPrefix(v, "()") {
			continue
		}
		out = append(out, name+"="+v)
	}
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		out = append(out, k+"="+env[k])
	}
	return out
}

// sameName reports whether a and b name the same variable (ignoring case
// on Windows, where variable names are case-insensitive).
func sameName(a, b string) bool {
	return a == b || runtime.GOOS == "windows" && strings.EqualFold(a, b)
}

// configured reports whether env sets the variable name (ignoring case on
// Windows, where variable names are case-insensitive).
func configured(env map[string]string, name string) bool {
	if _, ok := env[name]; ok {
		return true
	}
	if runtime.GOOS != "windows" {
		return false
	}
	for k := range env {
		if sameName(k, name) {
			return true
		}
	}
	return false
}
