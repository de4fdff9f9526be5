select id, name, tier, dbt_valid_from as tier_since
from {{ ref('customers_history') }}
where dbt_valid_to is null
