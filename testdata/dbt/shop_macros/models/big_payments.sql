{{ config(materialized='view') }}

{% call at_least('amount') %}
    select id, order_id, amount, {{ cents_to_dollars('amount') }} as dollars
    from {{ ref('raw_payments') }}
{% endcall %}
