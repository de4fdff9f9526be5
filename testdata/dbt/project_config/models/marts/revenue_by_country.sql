{{ config(tags=['daily']) }}
select c.name as country, sum(o.amount) as revenue
from {{ ref('stg_orders') }} as o
join {{ ref('countries') }} as c on c.code = o.country
group by c.name
