-- A reproducible sample.
MODEL (name core.sample_seed, kind FULL);

SELECT t.trade_id, t.symbol
FROM @ref(raw.trades) AS t
USING SAMPLE reservoir(10 ROWS) REPEATABLE (42)
