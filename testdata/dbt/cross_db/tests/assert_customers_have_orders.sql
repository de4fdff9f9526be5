{{ config(severity='warn') }}
select customer_id from {{ ref('customer_orders') }} where orders < 1
