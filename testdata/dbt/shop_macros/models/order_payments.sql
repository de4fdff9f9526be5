{%- set methods = payment_methods() -%}

select
    order_id,
    {{ amount_by_method(methods) }},
    {{ cents_to_dollars('sum(amount)', 3) }} as total_amount,
    count(*) as payments
from {{ ref('raw_payments') }}
{% if target.type == 'duckdb' %}
where amount > 0
{% endif %}
group by order_id
