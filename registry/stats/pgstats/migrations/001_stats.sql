-- Call statistics: one row per recorded call, appended by every host.
CREATE TABLE stats_calls (
    started_at  timestamptz NOT NULL,
    started_ns  integer NOT NULL CHECK (started_ns BETWEEN 0 AND 999), -- nanoseconds below timestamptz's microsecond
    tool        text NOT NULL,
    pack        text NOT NULL DEFAULT '',
    duration_ns bigint NOT NULL CHECK (duration_ns >= 0),
    success     boolean NOT NULL,
    error_type  text NOT NULL DEFAULT '',
    bytes_in    bigint NOT NULL CHECK (bytes_in >= 0),
    bytes_out   bigint NOT NULL CHECK (bytes_out >= 0)
);

-- Summaries read a period back from its end, newest first.
CREATE INDEX stats_calls_started_at ON stats_calls (started_at DESC, started_ns DESC);
