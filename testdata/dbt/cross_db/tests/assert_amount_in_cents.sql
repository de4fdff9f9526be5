-- Every amount is its text in cents, over 100.
select order_id, amount, amount_text
from {{ ref('stg_orders') }}
where round(amount * 100) <> cast(amount_text as {{ dbt.type_int() }})
