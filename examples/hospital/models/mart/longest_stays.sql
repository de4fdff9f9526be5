MODEL (
  name mart.longest_stays,
  kind VIEW,
  description 'The ten longest completed stays'
);

SELECT * EXCLUDE (ended_at)
FROM @ref(med.stays)
WHERE ended_at IS NOT NULL
ORDER BY hours DESC, stay_id
LIMIT 10
