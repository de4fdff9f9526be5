select
    customer_id,
    count(*) as orders,
    {{ dbt.listagg('order_code', "', '", 'order by order_id') }} as order_codes,
    {{ dbt.datediff('min(ordered_on)', 'max(ordered_on)', 'day') }} as active_days,
    {{ dbt.datediff('min(ordered_on)', 'max(ordered_on)', 'week') }} as active_weeks,
    {{ dbt.any_value('ordered_month') }} is not null as has_month,
    {{ dbt.last_day('max(ordered_on)', 'month') }} as last_month_end
from {{ ref('stg_orders') }}
group by customer_id
