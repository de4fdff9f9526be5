select order_id, country, amount from {{ source('shop_files', 'orders') }}
