-- The shared schema of the differential suite (tests/differential/README in docs/sql-compatibility.md):
-- loaded into PostgreSQL 15 and into sparkwire by the same psycopg code (bench/differential.py), one statement
-- per `;` line. NULLs, duplicates, numerics of several scales, dates, timestamps, non-ASCII text, booleans.
DROP TABLE IF EXISTS emp;
DROP TABLE IF EXISTS dept;
DROP TABLE IF EXISTS nums;
DROP TABLE IF EXISTS words;
DROP TABLE IF EXISTS events;
DROP TABLE IF EXISTS nodes;
DROP TABLE IF EXISTS pairs;
CREATE TABLE emp (id int, name text, dept text, salary numeric(10,2), bonus numeric(8,3), age smallint,
  hired date, last_login timestamp, updated_at timestamptz, active boolean, rating real, score float8,
  manager_id int, badge bigint);
INSERT INTO emp VALUES
  (1, 'Alice', 'eng', 120000.00, 1500.500, 34, '2019-03-15', '2024-05-01 09:15:00', '2024-05-01 09:15:00+00', true, 4.5, 88.25, NULL, 9000000001),
  (2, 'Bob', 'eng', 95000.50, NULL, 28, '2021-07-01', '2024-05-02 17:45:30.25', '2024-05-02 17:45:30.25+00', true, 3.75, 71.5, 1, 9000000002),
  (3, 'Chloé', 'sales', 70000.00, 250.125, 45, '2015-11-30', NULL, '2023-12-31 23:59:59+00', false, 4.0, 90.0, 1, 9000000003),
  (4, 'Dmitri', 'sales', 70000.00, 250.125, 39, '2018-02-28', '2024-02-29 12:00:00', NULL, true, NULL, 65.125, 3, NULL),
  (5, 'Éva', NULL, 55000.75, 0.000, 23, '2023-01-09', '2024-01-01 00:00:00', '2024-01-01 00:00:00+00', NULL, 2.5, NULL, 3, 9000000005),
  (6, 'Fatima', 'hr', NULL, 100.000, 51, NULL, '2023-06-30 08:30:00', '2023-06-30 08:30:00+00', false, 5.0, 99.999, 1, 9000000006),
  (7, 'Gus', 'hr', 48000.00, -50.250, NULL, '2020-10-10', '2022-10-10 10:10:10', '2022-10-10 10:10:10+00', true, 1.25, 40.0, 6, 9000000007),
  (8, 'Hana 花', 'eng', 130000.00, 3000.000, 31, '2017-05-20', '2024-05-03 23:00:00', '2024-05-03 23:00:00+00', true, 4.5, 88.25, 1, 9000000008),
  (9, 'Ivan', 'ops', 62000.10, NULL, 29, '2022-04-01', NULL, NULL, false, 3.0, 55.5, 8, 9000000009),
  (10, 'Ümit', 'ops', 62000.10, 75.750, 60, '2010-01-01', '2021-12-31 23:59:59.999999', '2021-12-31 23:59:59.999999+00', true, 3.5, 77.75, 8, 9000000010),
  (11, 'alice', 'eng', 99999.99, 10.010, 34, '2019-03-15', '2024-05-01 09:15:00', '2024-05-01 09:15:00+00', true, 4.5, 88.25, 2, 9000000011),
  (12, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE dept (name text, budget numeric(12,2), region text, floor int);
INSERT INTO dept VALUES
  ('eng', 1000000.00, 'north', 3),
  ('sales', 400000.50, 'south', 1),
  ('hr', 150000.00, 'north', 2),
  ('legal', 80000.00, NULL, 4),
  ('ops', NULL, 'east', NULL);
CREATE TABLE nums (id int, i int, si smallint, bi bigint, n2 numeric(10,2), n4 numeric(12,4), n0 numeric(8,0),
  r real, f float8);
INSERT INTO nums VALUES
  (1, 7, 3, 10000000000, 12.34, 0.0001, 5, 1.5, 2.25),
  (2, -7, -3, -10000000000, -12.35, -1.5000, -5, -0.5, -1e-5),
  (3, 0, 0, 0, 0.00, 0.0000, 0, 0, 0),
  (4, 2147483647, 32767, 9223372036854775807, 99999999.99, 12345678.1234, 99999999, 1e30, 1e300),
  (5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (6, 7, 3, 10000000000, 12.34, 0.0001, 5, 1.5, 2.25),
  (7, 1, 1, 1, 0.50, 2.5000, 2, 0.1, 0.1),
  (8, -1, -1, -1, -0.50, -2.5000, -2, 1e-10, 123456789.123),
  (9, 100, 10, 1000, 1.00, 3.1416, 3, 100, 1e20),
  (10, 3, 2, 6, 2.50, 0.3333, 1, -2.5, -2.5);
CREATE TABLE words (id int, w text, lang text, note varchar(30));
INSERT INTO words VALUES
  (1, 'apple', 'en', 'fruit'),
  (2, 'Apple', 'en', NULL),
  (3, 'éclair', 'fr', 'pâtisserie'),
  (4, 'straße', 'de', 'street'),
  (5, '', 'en', 'empty'),
  (6, NULL, NULL, NULL),
  (7, '  padded  ', 'en', 'spaces'),
  (8, 'naïve café', 'fr', 'two words'),
  (9, '日本語', 'ja', 'Japanese'),
  (10, 'a_b%c', 'en', 'wildcards'),
  (11, 'apple', 'en', 'fruit'),
  (12, 'Zebra-42', 'en', 'mixed'),
  (13, 'foo.bar@example.com', 'en', 'email'),
  (14, 'ÅNGSTRÖM', 'sv', 'upper');
CREATE TABLE events (id int, emp_id int, kind text, at timestamp, at_tz timestamptz, day date, amount numeric(9,2));
INSERT INTO events VALUES
  (1, 1, 'login', '2024-01-15 08:00:00', '2024-01-15 08:00:00+00', '2024-01-15', 10.00),
  (2, 1, 'sale', '2024-01-15 12:30:45.5', '2024-01-15 12:30:45.5+00', '2024-01-15', 250.50),
  (3, 2, 'sale', '2024-02-29 23:59:59', '2024-02-29 23:59:59+00', '2024-02-29', 99.99),
  (4, 3, 'login', '2023-12-31 00:00:00', '2023-12-31 00:00:00+00', '2023-12-31', NULL),
  (5, 3, 'sale', '2024-03-10 02:30:00', '2024-03-10 02:30:00+00', '2024-03-10', 1000.00),
  (6, NULL, 'refund', '2024-03-11 15:00:00', '2024-03-11 15:00:00+00', '2024-03-11', -50.25),
  (7, 8, 'sale', NULL, NULL, NULL, 75.00),
  (8, 8, 'sale', '2024-07-04 18:00:00', '2024-07-04 18:00:00+00', '2024-07-04', 75.00),
  (9, 9, 'login', '2020-02-29 06:06:06', '2020-02-29 06:06:06+00', '2020-02-29', 0.00),
  (10, 1, 'sale', '2024-12-31 23:59:59.999', '2024-12-31 23:59:59.999+00', '2024-12-31', 12.34),
  (11, 42, 'sale', '2024-05-05 05:05:05', '2024-05-05 05:05:05+00', '2024-05-05', 5.05),
  (12, 2, NULL, '1999-12-31 23:00:00', '1999-12-31 23:00:00+00', '1999-12-31', 1.00);
CREATE TABLE nodes (id int, parent_id int, label text);
INSERT INTO nodes VALUES
  (1, NULL, 'root'), (2, 1, 'a'), (3, 1, 'b'), (4, 2, 'a1'), (5, 2, 'a2'), (6, 3, 'b1'), (7, 6, 'b1x'),
  (8, NULL, 'other'), (9, 8, 'o1');
CREATE TABLE pairs (k int, v int, tag text);
INSERT INTO pairs VALUES
  (1, 10, 'x'), (1, 10, 'x'), (1, 20, 'y'), (2, NULL, 'x'), (2, 30, NULL), (3, 30, 'z'), (NULL, 40, 'z'),
  (NULL, NULL, NULL), (4, 10, 'x'), (4, 10, 'x');
