-- After dbt-labs/jaffle-shop's staging models: dbt's cross-database
-- macros, as a project written for any warehouse calls them.
select
    id as order_id,
    cast(customer_id as {{ dbt.type_int() }}) as customer_id,
    cast(ordered_at as {{ dbt.type_timestamp() }}) as ordered_at,
    {{ dbt.date_trunc('day', 'ordered_at') }} as ordered_on,
    {{ dbt.date_trunc('month', 'ordered_at') }} as ordered_month,
    {{ dbt.dateadd('day', 30, dbt.date_trunc('day', 'ordered_at')) }} as due_on,
    cast(amount_cents as {{ dbt.type_numeric() }}) / 100 as amount,
    {{ dbt.safe_cast('amount_cents', dbt.type_string()) }} as amount_text,
    {{ dbt.cast_bool_to_text('is_paid') }} as paid_text,
    {{ dbt.split_part('items', "','", 1) }} as first_item,
    {{ dbt.concat(["'order-'", 'id']) }} as order_code,
    {{ dbt.hash('id') }} as order_hash
from {{ ref('raw_orders') }}
where cast(ordered_at as {{ dbt.type_timestamp() }}) <= {{ dbt.current_timestamp() }}
