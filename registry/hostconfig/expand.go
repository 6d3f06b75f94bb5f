package hostconfig

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
)

// Expand replaces ${NAME} and ${NAME:-default} in s with the values
// lookup gives (os.LookupEnv, typically), exactly as a configuration
// file's values are expanded (see the package documentation,
// Environment variables): $$ is a literal $, ${NAME:-default} uses
// default when NAME is unset or empty, and default is literal text. A
// bare $NAME (a $ followed by a letter or _) is refused, neither expanded
// nor kept, so that "Bearer $KEY" cannot silently send the text $KEY; a
// $ before anything else (a digit, punctuation, a space, the end) is
// kept as written. Other programs that read ${VAR}s (a JSON file of
// servers, say) call it to expand alike.
//
// The error, a *Problem wrapping ErrInvalid, names the variable of a
// well-formed ${NAME} that is unset, or says that a ${ is malformed or a
// $ stands bare before a name; it never quotes s or any other part of it
// (the text after a $ included), which may be a secret. The result is
// capped as a configuration's values are: at most MaxExpandedValueBytes,
// a problem beyond.
func Expand(s string, lookup func(string) (string, bool)) (string, error) {
	left := MaxExpandedBytes
	out, _, problem := expand(s, lookup, MaxExpandedValueBytes, &left)
	if problem != "" {
		return "", &Problem{Message: problem}
	}
	return out, nil
}

// expand replaces ${NAME} and ${NAME:-default} in s with values from
// lookup; $$ is a literal $, a $ before a letter or _ (a bare $NAME) is a
// problem (bareDollarProblem), and a $ followed by anything else is kept
// as it is. ${NAME:-default} uses default when NAME is unset or empty; the
// default is literal text: it cannot hold "}", and one holding "${" (an
// attempt at nesting) is a problem rather than a silent cut. It reports
// whether s held any ${…}, and a problem text (naming variables, never
// their values nor any other text of s) when a variable without a default
// is unset or a ${ is malformed.
//
// The text is capped as it grows, before each variable's value is
// written: at maxValue (LoadOptions.MaxExpandedValueBytes), and at *left,
// what the load has left of MaxExpandedBytes (taken from it when s expands without a problem),
// so that many references to a long variable are refused after a few
// copies instead of after building gigabytes. The problem names the
// variable whose value went over, never the value.
func expand(s string, lookup func(string) (string, bool), maxValue int, left *int) (out string, expanded bool, problem string) {
	if !strings.Contains(s, "$") {
		return s, false, ""
	}
	var b strings.Builder
	b.Grow(min(len(s), maxValue, max(*left, 0)))
	last := "" // the last variable written, named if the text after it goes over
	for i := 0; i < len(s); {
		c := s[i]
		if c != '$' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 < len(s) && s[i+1] == '$' {
			b.WriteByte('$')
			i += 2
			continue
		}
		if i+1 < len(s) && isNameStart(s[i+1]) {
			// $NAME: neither expanded nor kept, which would silently
			// send the text "$NAME". What follows is not quoted: it may
			// be part of a literal credential.
			return "", true, bareDollarProblem
		}
		if i+1 >= len(s) || s[i+1] != '{' {
			b.WriteByte('$')
			i++
			continue
		}
		end := strings.IndexByte(s[i+2:], '}')
		if end < 0 {
			return "", true, "unterminated ${; expected ${NAME} or ${NAME:-default} (write $$ for a literal $)"
		}
		inner := s[i+2 : i+2+end]
		name, def, hasDef := strings.Cut(inner, ":-")
		if !validEnvName(name) {
			// What it holds is not quoted: a literal credential that
			// happens to hold "${" would be shown.
			return "", true, "a ${…} whose name is not a variable name: expected ${NAME} or ${NAME:-default}, NAME matching [A-Za-z_][A-Za-z0-9_]* (write $$ for a literal $)"
		}
		if hasDef && strings.Contains(def, "${") {
			// ${A:-${B}} would otherwise end at B's "}" and leave "${B" as
			// the default, silently.
			return "", true, fmt.Sprintf("${%s:-…}: a default is literal text and may not hold ${ (variables do not nest); expected ${NAME:-text}", name)
		}
		v, ok := lookup(name)
		switch {
		case hasDef && (!ok || v == ""):
			v = def
		case !ok:
			return "", true, fmt.Sprintf("environment variable %s is not set (write ${%s:-default} to give a default)", name, name)
		}
		if p := overCap(b.Len()+len(v), maxValue, *left, name); p != "" {
			return "", true, p
		}
		b.WriteString(v)
		expanded, last = true, name
		i += 2 + end + 1
	}
	if expanded {
		if p := overCap(b.Len(), maxValue, *left, last); p != "" {
			return "", true, p
		}
		*left -= b.Len()
	}
	return b.String(), expanded, ""
}

// bareDollarProblem is the problem of a $ followed by a letter or _ (a
// bare $NAME, which shells expand): it says how to write either meaning
// and quotes nothing of the value.
const bareDollarProblem = "a bare $ before a name is not expanded: write ${NAME} to expand, or $$ for a literal $ (value not shown)"

// isNameStart reports whether c may start a variable name.
func isNameStart(c byte) bool {
	return c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z'
}

// overCap is the problem of an expanded text of n bytes, its last
// variable name, when n is over maxValue (one value's cap) or over left,
// what the load has left of MaxExpandedBytes; "" otherwise.
func overCap(n, maxValue, left int, name string) string {
	switch {
	case n > maxValue:
		setting := "hostconfig.MaxExpandedValueBytes"
		if maxValue != MaxExpandedValueBytes {
			setting = "the MaxExpandedValueBytes of hostconfig.LoadOptions or hostconfig.Expander"
		}
		return fmt.Sprintf("${%s} makes the value longer than %d bytes; expected a value of at most %d bytes once its variables are expanded (%s)",
			name, maxValue, maxValue, setting)
	case n > left:
		return fmt.Sprintf("${%s} takes the text expanded from variables past %d bytes in all; expected at most %d bytes of expanded values in the whole configuration (hostconfig.MaxExpandedBytes)",
			name, MaxExpandedBytes, MaxExpandedBytes)
	}
	return ""
}

func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// CredentialEnvName reports whether an environment variable's name says
// it holds a credential, by its words (split at '_', any case): a word
// TOKEN, SECRET, PASSWORD, PASSWD, PASS, APIKEY, AUTH, CREDENTIAL(S), or
// ending in TOKEN, SECRET, PASSWORD or APIKEY (CLIENTSECRET), or PWD after
// another word (MYSQL_PWD; PWD alone is the working directory), or KEY
// after any word but PUBLIC, SORT, CACHE, PARTITION, PRIMARY, HOT or
// IDEMPOTENCY (OPENAI_KEY, AWS_SECRET_ACCESS_KEY) — unless a later word
// says the name is about the credential rather than holding it (ID, FILE,
// PATH, URL, TYPE, …: GPG_KEY_ID, TOKEN_FILE). GITHUB_TOKEN,
// SECRET_KEY_BASE and OPENAI_API_KEY are credentials; SSH_AUTH_SOCK,
// TOKENIZERS_PARALLELISM and KEYBOARD are not. Such a variable is a
// secret: a server's inherit_env may not name it (env: {NAME: "${NAME}"}
// passes it, redacted).
func CredentialEnvName(name string) bool {
	words := strings.Split(strings.ToUpper(name), "_")
	for i, w := range words {
		if w == "" || !credentialEnvWord(words, i) {
			continue
		}
		about := false
		for _, later := range words[i+1:] {
			if envAboutWords[later] {
				about = true
				break
			}
		}
		if !about {
			return true
		}
	}
	return false
}

// credentialEnvWord reports whether words[i] names a credential.
func credentialEnvWord(words []string, i int) bool {
	w := words[i]
	switch w {
	case "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "APIKEY", "AUTH", "CREDENTIAL", "CREDENTIALS":
		return true
	case "PWD":
		return len(words) > 1
	case "KEY":
		return i > 0 && !plainKeyQualifiers[words[i-1]] && words[i-1] != ""
	}
	for _, suffix := range []string{"TOKEN", "SECRET", "PASSWORD", "APIKEY"} {
		if strings.HasSuffix(w, suffix) {
			return true
		}
	}
	return false
}

// plainKeyQualifiers are the words before KEY naming a key that is no
// credential.
var plainKeyQualifiers = map[string]bool{"PUBLIC": true, "SORT": true, "CACHE": true, "PARTITION": true, "PRIMARY": true,
	"HOT": true, "IDEMPOTENCY": true}

// envAboutWords, after a credential's word, make a name about the
// credential rather than one holding it.
var envAboutWords = map[string]bool{"ID": true, "FILE": true, "PATH": true, "DIR": true, "URL": true, "TYPE": true,
	"NAME": true, "LENGTH": true, "TTL": true, "EXPIRY": true, "SOCK": true, "SOCKET": true, "HELPER": true,
	"COMMAND": true, "CMD": true, "ENABLED": true, "REQUIRED": true, "MODE": true, "POLICY": true, "PARALLELISM": true}

// An Expander expands and checks the server entries of a source other
// than a configuration file (the example server's -proxy JSON file)
// exactly as Load expands and checks a servers: entry, so that the two
// agree: the same ${VAR} rules (Expand), in the same fields, under the
// same caps, with the same URL rules and the same Secrets. The zero value
// reads os.LookupEnv with the default caps. Use one Expander per source:
// its entries' values together expand to at most MaxExpandedBytes, as
// one load's do. It is not safe for concurrent use.
type Expander struct {
	// LookupEnv looks up the variables of ${VAR}; nil means os.LookupEnv.
	LookupEnv func(name string) (string, bool)
	// MaxExpandedValueBytes caps one value once expanded; zero means
	// MaxExpandedValueBytes, as for LoadOptions.
	MaxExpandedValueBytes int

	used int // bytes of MaxExpandedBytes taken by the values expanded so far
}

// Server returns s with its values expanded as Load expands a servers:
// entry's: Description, every Command argument, Dir, URL, and the values
// of Env and Headers (not InheritEnv, which names variables, nor Name).
// URL must be an absolute http or https URL with a host and without user
// information (user:password@: credentials go in Headers, which are
// redacted). Secrets is set to the values the environment gave the
// entry's ${VAR}s, but for those lying wholly within the URL's scheme,
// host and port (a ${HOST} is no secret; a ${TOKEN} in the path or query
// is), as Load sets Server.Secrets. Dir is expanded only: a relative
// directory stays relative to the working directory.
//
// The entry's shape is checked as Load checks a servers: entry's: its
// Name, Env's names and Headers' names and values (no CR, LF or NUL);
// exactly one of Command (a non-empty list) and URL; Env, Dir and InheritEnv only
// with Command, Headers only with URL; InheritEnv's names valid, each
// once, none holding a credential by its name (CredentialEnvName) and
// none also in Env (names compared without case on Windows).
//
// The error joins one *Problem (wrapping ErrInvalid) per value at fault,
// its Key the field as Load's keys name it under the server ("url",
// "command[1]", "headers.Authorization"); no value, nor any part of one,
// is ever quoted. On error the returned Server is the zero value.
func (e *Expander) Server(s Server) (Server, error) {
	if probs := checkServerShape(runtime.GOOS, s); len(probs) > 0 {
		return Server{}, errors.Join(probs...)
	}
	lookup := e.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	maxValue := e.MaxExpandedValueBytes
	switch {
	case maxValue < 0:
		return Server{}, &Problem{Message: fmt.Sprintf("Expander.MaxExpandedValueBytes is %d; expected zero (the default, %d bytes) or a positive size", maxValue, MaxExpandedValueBytes)}
	case maxValue == 0:
		maxValue = MaxExpandedValueBytes
	}
	var probs []error
	var secrets []string
	var noted *[]string
	noting := func(name string) (string, bool) {
		v, ok := lookup(name)
		if ok && v != "" && !slices.Contains(*noted, v) {
			*noted = append(*noted, v)
		}
		return v, ok
	}
	one := func(key, v string) string {
		left := MaxExpandedBytes - e.used
		out, _, problem := expand(v, noting, maxValue, &left)
		if problem != "" {
			probs = append(probs, &Problem{Key: key, Message: problem})
			return ""
		}
		e.used = MaxExpandedBytes - left
		return out
	}
	values := func(field string, m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		out := make(map[string]string, len(m))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out[k] = one(field+"."+k, m[k])
		}
		return out
	}

	noted = &secrets
	out := s
	out.Description = one("description", s.Description)
	if s.Command != nil {
		out.Command = make([]string, len(s.Command))
		for i, a := range s.Command {
			out.Command[i] = one(fmt.Sprintf("command[%d]", i), a)
		}
	}
	out.Dir = one("dir", s.Dir)
	var urlVals []string
	noted = &urlVals
	before := len(probs)
	out.URL = one("url", s.URL)
	noted = &secrets
	if s.URL != "" && len(probs) == before {
		if problem := checkServerURL(out.URL); problem != "" {
			probs = append(probs, &Problem{Key: "url", Message: problem})
		}
	}
	out.Env = values("env", s.Env)
	out.Headers = values("headers", s.Headers)
	for _, hn := range slices.Sorted(maps.Keys(out.Headers)) {
		if strings.ContainsAny(out.Headers[hn], "\r\n\x00") { // as expanded, as Load checks it
			probs = append(probs, &Problem{Key: "headers." + hn, Message: msgHeaderValue})
		}
	}
	if len(probs) > 0 {
		return Server{}, errors.Join(probs...)
	}
	addURLSecrets(&secrets, out.URL, urlVals)
	out.InheritEnv = slices.Clone(s.InheritEnv)
	out.Secrets = secrets
	return out, nil
}

// checkServerShape checks what Load's decoder checks of a servers:
// entry's keys, on a Server value: which keys go together, and
// InheritEnv's names (their case ignored on Windows, goos being
// runtime.GOOS).
func checkServerShape(goos string, s Server) []error {
	var probs []error
	bad := func(key, format string, a ...any) {
		probs = append(probs, &Problem{Key: key, Message: fmt.Sprintf(format, a...)})
	}
	if !serverNameRE.MatchString(s.Name) {
		bad("name", msgServerName, quote(s.Name))
	}
	var envNames []string
	for _, en := range slices.Sorted(maps.Keys(s.Env)) {
		key := "env." + en
		if !validEnvName(en) {
			bad("env", "expected variable names matching [A-Za-z_][A-Za-z0-9_]*, got %s", quote(en))
			continue
		}
		if k := slices.IndexFunc(envNames, func(o string) bool { return sameEnvName(goos, o, en) }); k >= 0 {
			bad(key, msgSetTwice, en, caseNote(en, envNames[k]))
			continue
		}
		envNames = append(envNames, en)
	}
	for _, hn := range slices.Sorted(maps.Keys(s.Headers)) {
		if !headerNameRE.MatchString(hn) {
			bad("headers", "expected HTTP header names (RFC 9110 tokens), got %s", quote(hn))
			continue
		}
	}
	hasCmd, hasURL := s.Command != nil, s.URL != ""
	switch {
	case hasCmd && hasURL:
		bad("url", msgCommandAndURL)
	case !hasCmd && !hasURL:
		bad("", msgNeither)
	case hasCmd && len(s.Command) == 0:
		bad("command", "expected the program and its arguments, got an empty list")
	}
	if !hasCmd {
		if s.Env != nil {
			bad("env", msgOnlyCommand)
		}
		if s.Dir != "" {
			bad("dir", msgOnlyCommand)
		}
		if s.InheritEnv != nil {
			bad("inherit_env", msgOnlyCommand)
		}
	}
	if !hasURL && s.Headers != nil {
		bad("headers", msgOnlyURL)
	}
	var seen []string
	for i, en := range s.InheritEnv {
		key := fmt.Sprintf("inherit_env[%d]", i)
		twice := slices.IndexFunc(seen, func(o string) bool { return sameEnvName(goos, o, en) })
		switch {
		case !validEnvName(en):
			bad(key, msgEnvName, quote(en))
			continue
		case twice >= 0:
			bad(key, msgNamedTwice, en, caseNote(en, seen[twice]))
			continue
		case CredentialEnvName(en):
			bad(key, msgInheritCredential, en, en, en)
			continue
		}
		seen = append(seen, en)
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			if sameEnvName(goos, k, en) {
				bad(key, msgAlsoInEnv, en, caseNote(en, k))
				break
			}
		}
	}
	return probs
}
