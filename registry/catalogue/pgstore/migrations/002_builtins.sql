-- The built-ins overlay (catalogue.BuiltInsKeeper): the enabled switches,
-- first-served times and usage counts of the host's built-in bundles and
-- tools, one JSON document shared by every host on the catalogue, written
-- under the row's lock.
CREATE TABLE catalogue_builtins (
    id  smallint PRIMARY KEY CHECK (id = 1),
    doc json NOT NULL
);

---- create above / drop below ----

DROP TABLE catalogue_builtins;
