package mcpproxy

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// configFields are the fields a *ConfigError may name.
var configFields = map[string]bool{"Name": true, "Command/URL/Transport": true, "Command[0]": true,
	"Env": true, "Dir": true, "URL": true, "Headers": true}

// FuzzConfig feeds arbitrary server configurations to what the package
// parses of them: validation (names, command, environment, URL, headers),
// the secrets read from them (header values, environment values, URL user
// information and query) and the URL shown in logs. It must never panic;
// every error must be *ConfigErrors wrapping ErrInvalidConfig, each naming
// the server and a field; no error, and no logged URL, may quote a secret;
// and the redactor built from the configuration must leave no secret in a
// text that holds them all.
func FuzzConfig(f *testing.F) {
	f.Add(uint8(1), "github", "github-mcp-server", "GITHUB_TOKEN", "ghp-secret-value", "", "", "", "")
	f.Add(uint8(2), "search", "", "", "", "", "https://user:pa55-word@mcp.example.com/mcp?key=k3y-value", "Authorization", "Bearer tok-en-123")
	f.Add(uint8(2), "basic", "", "", "", "", "http://127.0.0.1:8080/mcp", "Authorization", "Basic YWxpY2U6czNjcjN0LXBhc3M=")
	f.Add(uint8(3), "both", "srv", "", "", "/tmp", "http://127.0.0.1/", "X-Key", "v\r\nInjected: 1")
	f.Add(uint8(0), "has space", "", "A=B", "value-1234", "", "ftp://h/", "Bad Name", "x")
	f.Add(uint8(2), "", "", "", "", "", "http://[::1", "", "")
	f.Add(uint8(6), "t.x-y_z", "", "", "", "", "//no-scheme", "X-A", "expected")
	f.Fuzz(func(t *testing.T, kind uint8, name, cmd0, envKey, envVal, dir, rawURL, hdrKey, hdrVal string) {
		c := Config{Name: name, Dir: dir}
		if kind&1 != 0 {
			c.Command = []string{cmd0, "--stdio"}
		}
		if kind&2 != 0 {
			c.URL = rawURL
		}
		if kind&4 != 0 {
			c.Transport = func(context.Context) (mcp.Transport, error) { return nil, errors.New("unused") }
		}
		if kind&8 == 0 {
			c.Env = map[string]string{envKey: envVal}
		}
		if kind&16 == 0 {
			c.Headers = map[string]string{hdrKey: hdrVal}
		}

		err := validate([]Config{c})
		red := newRedactor(c)
		shown := ""
		if c.URL != "" {
			shown = displayURL(c.URL)
		}
		if err == nil {
			if !serverNameRE.MatchString(c.Name) {
				t.Fatalf("accepted the name %q", c.Name)
			}
		} else {
			checkConfigErrors(t, err)
		}

		// The same configuration with neutral secrets: what an error or
		// the shown URL holds of a secret must come from elsewhere.
		neutral, urlNeutral := neutralConfig(c)
		var errText, neutralText string
		if err != nil {
			errText = err.Error()
			if nerr := validate([]Config{neutral}); nerr != nil {
				neutralText = nerr.Error()
			}
		}
		secrets := configSecrets(c)
		for _, s := range secrets {
			if len(s) < minSecretLen {
				continue
			}
			q := strconv.Quote(s)
			for _, form := range []string{s, q[1 : len(q)-1]} {
				if strings.Contains(errText, form) && !strings.Contains(neutralText, form) {
					t.Fatalf("the error quotes the secret %q: %s", s, errText)
				}
				if urlNeutral && strings.Contains(shown, form) && !strings.Contains(displayURL(neutral.URL), form) {
					t.Fatalf("the shown URL holds the secret %q: %s", s, shown)
				}
			}
		}

		all := errText + " | " + shown + " | " + strings.Join(secrets, " | ")
		out := red.text(all)
		for _, s := range secrets {
			if len(s) < minSecretLen {
				continue
			}
			if len(s) < minSplitLen {
				// Short secrets are redacted where they stand as a whole word.
				if _, found := replaceWord(out, s, ""); found {
					t.Fatalf("the redactor left the secret %q as a word in %q", s, out)
				}
			} else if strings.Contains(out, s) {
				t.Fatalf("the redactor left the secret %q in %q", s, out)
			}
			if fs := stripSeparators(s); len(fs) >= minSplitLen && strings.Contains(stripSeparators(out), fs) {
				t.Fatalf("the redactor left the secret %q split in %q", s, out)
			}
		}
	})
}

// checkConfigErrors checks that err is made of *ConfigError values that
// wrap ErrInvalidConfig and name the server and a field.
func checkConfigErrors(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("error does not wrap ErrInvalidConfig: %v", err)
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var ce *ConfigError
		if !errors.As(e, &ce) {
			t.Fatalf("not a *ConfigError: %v", e)
		}
		field := ce.Field
		if strings.HasPrefix(field, "Headers[") && strings.HasSuffix(field, "]") {
			field = "Headers"
		}
		if ce.Server == "" || !configFields[field] || ce.Problem == "" {
			t.Fatalf("error does not name a server and a field: %#v", ce)
		}
		if !strings.Contains(e.Error(), "field "+ce.Field) || !strings.Contains(e.Error(), "server "+ce.Server) {
			t.Fatalf("error text does not name the server and field: %v", e)
		}
	}
}

// configSecrets lists the values of c that are secrets: every header and
// environment value but the plain settings and standard request headers
// the redactor leaves alone (plainSetting, publicHeader), and the URL's
// user information and query values.
func configSecrets(c Config) []string {
	var out []string
	for k, v := range c.Headers {
		if !publicHeader(k) && !plainSetting(v) {
			out = append(out, v)
		}
	}
	for _, v := range c.Env {
		if !plainSetting(v) {
			out = append(out, v)
		}
	}
	if u, err := url.Parse(c.URL); err == nil && c.URL != "" {
		if u.User != nil {
			out = append(out, u.User.Username())
			if p, ok := u.User.Password(); ok {
				out = append(out, p)
			}
		}
		for _, vs := range u.Query() {
			out = append(out, vs...)
		}
	}
	return out
}

// neutralConfig returns c with every secret replaced by a value of the
// same validity that cannot be a secret (shorter than minSecretLen), and
// whether the URL could be neutralized with the same validity.
func neutralConfig(c Config) (Config, bool) {
	n := c
	n.Headers = map[string]string{}
	for k, v := range c.Headers {
		n.Headers[k] = "v"
		if strings.ContainsAny(v, "\r\n\x00") {
			n.Headers[k] = "v\n"
		}
	}
	n.Env = map[string]string{}
	for k := range c.Env {
		n.Env[k] = "v"
	}
	if c.URL == "" {
		return n, true
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return n, false
	}
	if u.User != nil {
		u.User = url.UserPassword("u", "p")
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"v"}
		}
		u.RawQuery = q.Encode()
	}
	if checkURL(u.String()) != checkURL(c.URL) {
		return n, false // the URL's secrets stay, so they are not checked
	}
	n.URL = u.String()
	return n, true
}
