-- A tool id is unique within its bundle, not across bundles (as in the
-- file store): a copy of a bundle — exported, given a new bundle id,
-- imported — keeps its tools' ids. 001 made catalogue_tools.id unique
-- across the catalogue, which refused such an import.
ALTER TABLE catalogue_tools DROP CONSTRAINT catalogue_tools_id_key;
ALTER TABLE catalogue_tools ADD CONSTRAINT catalogue_tools_bundle_tool_id_key UNIQUE (bundle_id, id);

---- create above / drop below ----

ALTER TABLE catalogue_tools DROP CONSTRAINT catalogue_tools_bundle_tool_id_key;
ALTER TABLE catalogue_tools ADD CONSTRAINT catalogue_tools_id_key UNIQUE (id);
