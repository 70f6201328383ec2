{{ config(materialized='materialized_view', indexes=[{'columns': ['customer_id']}]) }}
select c.customer_id, c.name, count(o.order_id) as order_count, coalesce(sum(o.amount), 0) as total_amount
from {{ ref('customers') }} c
left join {{ ref('stg_orders') }} o on o.customer_id = c.customer_id
group by c.customer_id, c.name
