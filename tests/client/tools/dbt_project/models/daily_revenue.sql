{{ config(materialized=var('table_materialization', 'table')) }}
select order_date, sum(amount) as revenue, count(*) as orders
from {{ ref('stg_orders') }}
group by order_date
