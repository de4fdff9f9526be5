-- @DEDUPLICATE as the whole query: the latest version of each id.
MODEL (name m.dedup_latest, kind FULL);

@DEDUPLICATE(@ref(raw.versions), partition_by := [id], order_by := ['updated_at DESC'])
