package catalogue

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Environment of the child processes of the multi-process tests, and the
// knobs that scale them:
//
//	CATALOGUE_RACE_ROUNDS=500 go test ./registry/catalogue/ -run MultiProcess -timeout 30m
//	CATALOGUE_KILL_ROUNDS=100 go test ./registry/catalogue/ -run KillNine -timeout 30m
//
// The defaults are 50 race rounds and 20 kills (a fifth under -short).
const (
	envRaceDir    = "CATALOGUE_TEST_RACE_DIR"
	envRaceBundle = "CATALOGUE_TEST_RACE_BUNDLE"
	envRaceStart  = "CATALOGUE_TEST_RACE_START"
	envRaceRounds = "CATALOGUE_RACE_ROUNDS"
	envKillDir    = "CATALOGUE_TEST_KILL_DIR"
	envKillBundle = "CATALOGUE_TEST_KILL_BUNDLE"
	envKillRounds = "CATALOGUE_KILL_ROUNDS"
)

// envInt reads a round count: the variable if set, else def (a fifth of
// it under -short).
func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		if testing.Short() {
			return max(1, def/5)
		}
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "%s must be an integer", name)
	require.Positive(t, n, name)
	return n
}

// 8 OS processes race to put the same <slug, version> into one directory,
// round after round: exactly one process wins each pair, the stored tool is
// the winner's, and no file is corrupt.
func TestFileStore_MultiProcessUniqueness(t *testing.T) {
	if dir := os.Getenv(envRaceDir); dir != "" {
		raceChild(t, dir)
		return
	}
	const procs = 8
	rounds := envInt(t, envRaceRounds, 50)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	dir := t.TempDir()
	s := openFile(t, dir, nil)
	bid := mustBundle(t, s, "race")
	start := filepath.Join(t.TempDir(), "start")

	cmds := make([]*exec.Cmd, procs)
	outs := make([]*strings.Builder, procs)
	for i := range cmds {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestFileStore_MultiProcessUniqueness$", "-test.count=1")
		cmd.Env = append(os.Environ(), envRaceDir+"="+dir, envRaceBundle+"="+bid.String(),
			envRaceStart+"="+start, envRaceRounds+"="+strconv.Itoa(rounds))
		outs[i] = &strings.Builder{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		require.NoError(t, cmd.Start())
		cmds[i] = cmd
	}
	// Every child waits for this file, so they all start together.
	require.NoError(t, os.WriteFile(start, nil, 0o600))
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "child %d:\n%s", i, outs[i])
	}

	winners := make(map[int][]string, rounds)
	for i, out := range outs {
		seen := 0
		for _, line := range strings.Split(out.String(), "\n") {
			f := strings.Fields(line)
			if len(f) < 3 || f[0] != "RACE" {
				continue
			}
			seen++
			r, err := strconv.Atoi(f[1])
			require.NoError(t, err)
			switch f[2] {
			case "won":
				winners[r] = append(winners[r], f[3])
			case "conflict":
			default:
				t.Fatalf("child %d: %s", i, line)
			}
		}
		require.Equal(t, rounds, seen, "child %d reported every round:\n%s", i, out)
	}
	s2 := openFile(t, dir, nil)
	assert.Empty(t, s2.Problems(), "no corrupt file")
	for r := range rounds {
		require.Len(t, winners[r], 1, "round %d: exactly one process wins", r)
		got, err := s2.GetTool(context.Background(), raceKey(bid, r))
		require.NoError(t, err)
		assert.Equal(t, winners[r][0], got.ID.String(), "round %d: the stored tool is the winner's", r)
	}
	list, err := s2.ListTools(context.Background(), ToolQuery{})
	require.NoError(t, err)
	assert.Len(t, list, rounds)
}

func raceKey(bid uuid.UUID, round int) ToolKey {
	return ToolKey{BundleID: bid, Slug: "race", Version: fmt.Sprintf("1.%d", round)}
}

func raceChild(t *testing.T, dir string) {
	bid, err := uuid.Parse(os.Getenv(envRaceBundle))
	require.NoError(t, err)
	rounds := envInt(t, envRaceRounds, 50)
	s, err := OpenFileStore(context.Background(), dir, FileOptions{Logger: discard, FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	defer s.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(os.Getenv(envRaceStart)); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "start signal never came")
		time.Sleep(time.Millisecond)
	}
	spec := httpSpec(fmt.Sprintf("pid %d", os.Getpid()))
	for r := range rounds {
		tool, err := s.PutTool(context.Background(), raceKey(bid, r), spec)
		switch {
		case err == nil:
			fmt.Printf("RACE %d won %s\n", r, tool.ID)
		case isConflict(err):
			fmt.Printf("RACE %d conflict x\n", r)
		default:
			fmt.Printf("RACE %d error %v\n", r, err)
		}
	}
}

func isConflict(err error) bool {
	return err != nil && strings.Contains(err.Error(), ErrConflict.Error())
}

// A writer is killed with SIGKILL mid-work, again and again: the store
// always opens, reports no corrupt file, and holds only whole records.
func TestFileStore_KillNineWhileWriting(t *testing.T) {
	if dir := os.Getenv(envKillDir); dir != "" {
		killChild(t, dir)
		return
	}
	rounds := envInt(t, envKillRounds, 20)
	ctx := context.Background()
	dir := t.TempDir()
	s := openFile(t, dir, nil)
	bid := mustBundle(t, s, "victim")
	require.NoError(t, s.Close())

	leftovers, last := 0, 0
	for round := range rounds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFileStore_KillNineWhileWriting$", "-test.count=1")
		cmd.Env = append(os.Environ(), envKillDir+"="+dir, envKillBundle+"="+bid.String())
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		ready := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(stdout)
			once := false
			for sc.Scan() {
				if !once && sc.Text() == "READY" {
					close(ready)
					once = true
				}
			}
		}()
		select {
		case <-ready:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("round %d: the writer never got going", round)
		}
		time.Sleep(time.Duration(5+rand.IntN(75)) * time.Millisecond)
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait()

		leftovers += countTemps(t, dir)
		s, err := OpenFileStore(ctx, dir, FileOptions{Logger: discard, FlushInterval: -1, ReapInterval: -1})
		require.NoError(t, err, "round %d: the store opens", round)
		require.Empty(t, s.Problems(), "round %d: no file is a partial record", round)
		require.Zero(t, countTemps(t, dir), "round %d: temporary files cleaned", round)
		b, err := s.GetBundle(ctx, bid)
		require.NoError(t, err)
		require.NoError(t, b.BundleSpec.Validate())
		tools, err := s.ListTools(ctx, ToolQuery{IncludeDisabled: true})
		require.NoError(t, err)
		for _, tl := range tools {
			require.NoError(t, tl.Key().Validate())
			require.NoError(t, tl.ToolSpec.Validate(), "round %d: %s@%s is whole", round, tl.Slug, tl.Version)
		}
		require.GreaterOrEqual(t, len(tools), last, "round %d: no committed tool lost", round)
		last = len(tools)
		require.NoError(t, s.Close())
	}
	t.Logf("%d rounds, %d tools written, %d temporary files left by killed writes (all cleaned)", rounds, last, leftovers)
}

func countTemps(t *testing.T, dir string) int {
	n := 0
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tmpPrefix) {
			n++
		}
		return err
	}))
	return n
}

// killChild writes until it is killed: new tool versions with large
// schemas, enabled toggles, usage flushes and bundle rewrites.
func killChild(t *testing.T, dir string) {
	ctx := context.Background()
	bid, err := uuid.Parse(os.Getenv(envKillBundle))
	require.NoError(t, err)
	s, err := OpenFileStore(ctx, dir, FileOptions{Logger: discard, FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	props := make([]string, 400)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%d":{"type":"string","description":"%s"}`, i, strings.Repeat("x", 60))
	}
	spec := httpSpec("Victim", "kill")
	spec.ArgSchema = []byte(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)
	spec.Description = strings.Repeat("a long description ", 200)
	fixed := ToolKey{BundleID: bid, Slug: "fixed", Version: "1"}
	if _, err := s.PutTool(ctx, fixed, spec); err != nil && !isConflict(err) {
		require.NoError(t, err)
	}
	fmt.Println("READY")
	for i := 0; ; i++ {
		key := ToolKey{BundleID: bid, Slug: "victim", Version: fmt.Sprintf("%d.%d", os.Getpid(), i)}
		_, err := s.PutTool(ctx, key, spec)
		require.NoError(t, err)
		_, err = s.SetToolEnabled(ctx, fixed, i%2 == 0)
		require.NoError(t, err)
		require.NoError(t, s.RecordUsage(ctx, fixed, time.Now()))
		require.NoError(t, s.Flush(ctx))
		_, _, err = s.PutBundle(ctx, bid, BundleSpec{Slug: "victim", DisplayName: fmt.Sprintf("Victim %d", i), IsEnabled: true})
		require.NoError(t, err)
	}
}
