-- An upsert by key of a struct-valued query.
MODEL (
  name core.unique_key_structs,
  kind INCREMENTAL_BY_UNIQUE_KEY (key (symbol))
);

SELECT t.symbol, {'n': count(*), 'qty': sum(t.qty)} AS stats, list(t.trade_id ORDER BY t.trade_id)[1:3] AS first_ids
FROM @ref(raw.trades) AS t
GROUP BY t.symbol
