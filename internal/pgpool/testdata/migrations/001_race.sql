CREATE TABLE race_things (id bigint PRIMARY KEY);
