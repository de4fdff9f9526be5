{{ config(materialized='incremental') }}

select
    id,
    order_id,
    created_at,
    {%- for m in ['coupon', 'gift_card'] %}
    payment_method = '{{ m }}' as is_{{ m }},
    {%- endfor %}
    {{ cents_to_dollars('amount', scale=1) }} as dollars
from {{ ref('raw_payments') }}
{% if is_incremental() %}
  where created_at > (select max(created_at) from {{ this }})
{% endif %}
