#!/bin/sh
# shop32.sh writes (in the current folder) a 32-model project five generations deep:
# raw.src_0..5 (SEED) <- stg.s_0..7 (VIEW) <- core.c_0..7 (even: incremental
# by time range, c_7 by unique key, else FULL; c_0 c_3 c_6 tagged nightly)
# <- mart.m_0..5 (FULL) <- report.r_0..3 (VIEW, under models/mart/reports).
set -e
mkdir -p seeds models/raw models/staging models/core models/mart/reports tests
for i in 0 1 2 3 4 5; do
  printf 'id,amount,ts\n1,%d,2026-01-01 10:00:00\n2,%d,2026-01-02 10:00:00\n' $i $((i+10)) > seeds/src_$i.csv
  printf "MODEL (\n  name raw.src_$i,\n  kind SEED (path 'seeds/src_$i.csv'),\n  columns (id INT, amount INT, ts TIMESTAMP),\n  tags (raw),\n  audits (not_null(id))\n);\n" > models/raw/src_$i.sql
done
for i in 0 1 2 3 4 5 6 7; do
  printf "MODEL (name stg.s_$i, kind VIEW, tags (staging));\nSELECT id, amount, ts FROM @ref(raw.src_$((i % 6)))\n" > models/staging/s_$i.sql
done
for i in 0 1 2 3 4 5 6 7; do
  j=$(((i + 1) % 8)); kind=FULL; where=''; tags=core
  if [ $((i % 2)) = 0 ]; then kind='INCREMENTAL_BY_TIME_RANGE (time_column ts)'; where='WHERE a.ts >= @start AND a.ts < @end'; fi
  if [ $i = 7 ]; then kind='INCREMENTAL_BY_UNIQUE_KEY (key id)'; fi
  if [ $((i % 3)) = 0 ]; then tags='core, nightly'; fi
  printf "MODEL (name core.c_$i, kind $kind, tags ($tags), audits (unique(id)));\nSELECT a.id, a.amount + b.amount AS amount, a.ts\nFROM @ref(stg.s_$i) AS a JOIN @ref(stg.s_$j) AS b USING (id)\n$where\n" > models/core/c_$i.sql
done
for i in 0 1 2 3 4 5; do
  printf "MODEL (name mart.m_$i, kind FULL, tags (mart));\nSELECT a.id, a.amount + b.amount AS amount\nFROM @ref(core.c_$i) AS a JOIN @ref(core.c_$((i + 2))) AS b USING (id)\n" > models/mart/m_$i.sql
done
for i in 0 1 2 3; do
  printf "MODEL (name report.r_$i, kind VIEW, tags (mart, report));\nSELECT a.id, a.amount - b.amount AS delta\nFROM @ref(mart.m_$i) AS a JOIN @ref(mart.m_$((i + 1))) AS b USING (id)\n" > models/mart/reports/r_$i.sql
done
for i in 1 3 5; do
  printf "c_${i}_adds:\n  model: core.c_$i\n  inputs:\n    stg.s_$i:\n      - {id: 1, amount: 1, ts: '2026-01-01T00:00:00'}\n    stg.s_$((i + 1)):\n      - {id: 1, amount: 2, ts: '2026-01-01T00:00:00'}\n  expect:\n    - {id: 1, amount: 3, ts: '2026-01-01T00:00:00'}\n" > tests/c_$i.yaml
done
printf "m_0_adds:\n  model: mart.m_0\n  inputs:\n    core.c_0:\n      - {id: 1, amount: 1}\n    core.c_2:\n      - {id: 1, amount: 5}\n  expect:\n    - {id: 1, amount: 6}\n" > tests/m_0.yaml
printf 'name: shop\nstart: 2026-01-01\n' > efmesh.yaml
