"""pg_get_keywords(), keyword-aware quote_ident and regclass output, pg_opfamily / pg_opclass and pg_index.indclass,
each compared with PostgreSQL 15 on the same statements.

What legitimately differs is left out and said so: owners (sparkwire's builtins belong to mz_system, PostgreSQL's
to its bootstrap superuser), and the result column name of `string_agg` (sparkwire's planner names it).
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

import psycopg
import pytest

from sparkwire.catalog.relations.pg_oids import BUILTIN_OWNER_OID
from sparkwire.pgtypes.registry import all_types
from tests.support.clients import unique
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[tuple[Any, ...]]

OID_LIST = ", ".join(str(t.oid) for t in all_types())
TEXT, BOOL = 25, 16
# pgjdbc's DatabaseMetaData.getSQLKeywords (PgDatabaseMetaData.java): the SQL:2003 keywords it leaves out.
JDBC_SQL_2003 = (
    "a,abs,absolute,action,ada,add,admin,after,all,allocate,alter,always,and,any,are,array,as,asc,"
    "asensitive,assertion,assignment,asymmetric,at,atomic,attribute,attributes,authorization,avg,before,"
    "begin,bernoulli,between,bigint,binary,blob,boolean,both,breadth,by,c,call,called,cardinality,"
    "cascade,cascaded,case,cast,catalog,catalog_name,ceil,ceiling,chain,char,char_length,character,"
    "character_length,character_set_catalog,character_set_name,character_set_schema,characteristics,"
    "characters,check,checked,class_origin,clob,close,coalesce,cobol,code_units,collate,collation,"
    "collation_catalog,collation_name,collation_schema,collect,column,column_name,command_function,"
    "command_function_code,commit,committed,condition,condition_number,connect,connection_name,"
    "constraint,constraint_catalog,constraint_name,constraint_schema,constraints,constructors,contains,"
    "continue,convert,corr,corresponding,count,covar_pop,covar_samp,create,cross,cube,cume_dist,current,"
    "current_collation,current_date,current_default_transform_group,current_path,current_role,"
    "current_time,current_timestamp,current_transform_group_for_type,current_user,cursor,cursor_name,"
    "cycle,data,date,datetime_interval_code,datetime_interval_precision,day,deallocate,dec,decimal,"
    "declare,default,defaults,deferrable,deferred,defined,definer,degree,delete,dense_rank,depth,deref,"
    "derived,desc,describe,descriptor,deterministic,diagnostics,disconnect,dispatch,distinct,domain,"
    "double,drop,dynamic,dynamic_function,dynamic_function_code,each,element,else,end,end-exec,equals,"
    "escape,every,except,exception,exclude,excluding,exec,execute,exists,exp,external,extract,false,"
    "fetch,filter,final,first,float,floor,following,for,foreign,fortran,found,free,from,full,function,"
    "fusion,g,general,get,global,go,goto,grant,granted,group,grouping,having,hierarchy,hold,hour,"
    "identity,immediate,implementation,in,including,increment,indicator,initially,inner,inout,input,"
    "insensitive,insert,instance,instantiable,int,integer,intersect,intersection,interval,into,invoker,"
    "is,isolation,join,k,key,key_member,key_type,language,large,last,lateral,leading,left,length,level,"
    "like,ln,local,localtime,localtimestamp,locator,lower,m,map,match,matched,max,maxvalue,member,merge,"
    "message_length,message_octet_length,message_text,method,min,minute,minvalue,mod,modifies,module,"
    "month,more,multiset,mumps,name,names,national,natural,nchar,nclob,nesting,new,next,no,none,"
    'normalize,normalized,not,"null",nullable,nullif,nulls,number,numeric,object,octet_length,octets,of,'
    "old,on,only,open,option,options,or,order,ordering,ordinality,others,out,outer,output,over,overlaps,"
    "overlay,overriding,pad,parameter,parameter_mode,parameter_name,parameter_ordinal_position,"
    "parameter_specific_catalog,parameter_specific_name,parameter_specific_schema,partial,partition,"
    "pascal,path,percent_rank,percentile_cont,percentile_disc,placing,pli,position,power,preceding,"
    "precision,prepare,preserve,primary,prior,privileges,procedure,public,range,rank,read,reads,real,"
    "recursive,ref,references,referencing,regr_avgx,regr_avgy,regr_count,regr_intercept,regr_r2,"
    "regr_slope,regr_sxx,regr_sxy,regr_syy,relative,release,repeatable,restart,result,return,"
    "returned_cardinality,returned_length,returned_octet_length,returned_sqlstate,returns,revoke,right,"
    "role,rollback,rollup,routine,routine_catalog,routine_name,routine_schema,row,row_count,row_number,"
    "rows,savepoint,scale,schema,schema_name,scope_catalog,scope_name,scope_schema,scroll,search,second,"
    "section,security,select,self,sensitive,sequence,serializable,server_name,session,session_user,set,"
    "sets,similar,simple,size,smallint,some,source,space,specific,specific_name,specifictype,sql,"
    "sqlexception,sqlstate,sqlwarning,sqrt,start,state,statement,static,stddev_pop,stddev_samp,structure,"
    "style,subclass_origin,submultiset,substring,sum,symmetric,system,system_user,table,table_name,"
    "tablesample,temporary,then,ties,time,timestamp,timezone_hour,timezone_minute,to,top_level_count,"
    "trailing,transaction,transaction_active,transactions_committed,transactions_rolled_back,transform,"
    "transforms,translate,translation,treat,trigger,trigger_catalog,trigger_name,trigger_schema,trim,"
    "true,type,uescape,unbounded,uncommitted,under,union,unique,unknown,unnamed,unnest,update,upper,"
    "usage,user,user_defined_type_catalog,user_defined_type_code,user_defined_type_name,"
    "user_defined_type_schema,using,value,values,var_pop,var_samp,varchar,varying,view,when,whenever,"
    "where,width_bucket,window,with,within,without,work,write,year,zone"
)
JDBC_KEYWORDS_SQL = (
    "select string_agg(word, ',') from pg_catalog.pg_get_keywords() where word <> ALL ('{"
    + JDBC_SQL_2003
    + "}'::text[])"
)
WORDS = (
    "abort",
    "select",
    "table",
    "int",
    "integer",
    "between",
    "char",
    "name",
    "user",
    "current_user",
    "authorization",
    "left",
    "join",
    "overlaps",
    "xmlelement",
    "a",
    "Ab",
    "a$b",
    "_x1",
    "x1",
    "1x",
    "",
    "é",
    'qu"ote',
    "with space",
    "analyse",
    "do",
    "end",
    "offset",
    "collation",
    "filter",
    "over",
    "window",
    "mz_catalog",
)


def rows(conn: Conn, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
    return conn.execute(sql, params).fetchall()


def both(sw: Conn, pg: Conn, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
    ours, theirs = rows(sw, sql, params), rows(pg, sql, params)
    assert ours == theirs
    return ours


def test_keyword_rows_are_postgres_rows(sw: Conn, pg: Conn) -> None:
    sql = "SELECT word, catcode, barelabel, catdesc, baredesc FROM pg_get_keywords() ORDER BY word"
    found = both(sw, pg, sql)
    assert len(found) > 450
    assert {code for _, code, *_ in found} == {"U", "C", "T", "R"}


def test_star_has_postgres_columns(sw: Conn, pg: Conn) -> None:
    sql = "SELECT * FROM pg_catalog.pg_get_keywords() WHERE word = 'select'"
    ours, theirs = sw.execute(sql), pg.execute(sql)
    assert [d.name for d in ours.description or ()] == [d.name for d in theirs.description or ()]
    assert ours.fetchall() == theirs.fetchall()
    types = [d.type_code for d in ours.description or ()]
    assert (types[0], types[2], types[3], types[4]) == (TEXT, BOOL, TEXT, TEXT)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT k.word, k.catcode FROM pg_catalog.pg_get_keywords() AS k WHERE k.catcode = 'R' ORDER BY 1",
        "SELECT w, c FROM pg_get_keywords() k(w, c) WHERE w LIKE 'cur%' ORDER BY w DESC",
        "SELECT pg_get_keywords.word FROM pg_get_keywords() WHERE pg_get_keywords.catcode IN ('T', 'C') ORDER BY 1",
        "SELECT catcode, count(*), min(word), max(word) FROM pg_get_keywords() GROUP BY catcode ORDER BY catcode",
        "SELECT word FROM pg_catalog.pg_get_keywords() WHERE word = 'select' AND catcode = 'R'",
        f"SELECT k.word, t.oid FROM pg_get_keywords() k JOIN pg_catalog.pg_type t ON t.typname = k.word "
        f"WHERE t.oid IN ({OID_LIST}) ORDER BY 1",
        "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_get_keywords() WHERE word = 'order')",
    ],
)
def test_call_forms(sw: Conn, pg: Conn, sql: str) -> None:
    assert both(sw, pg, sql)


def test_pgjdbc_get_sql_keywords(sw: Conn, pg: Conn) -> None:
    """The order of string_agg without ORDER BY is unspecified: the words are compared as sets."""
    ((ours,),), ((theirs,),) = rows(sw, JDBC_KEYWORDS_SQL), rows(pg, JDBC_KEYWORDS_SQL)
    assert sorted(ours.split(",")) == sorted(theirs.split(","))
    assert "abort" in ours.split(",") and "select" not in ours.split(",")


def test_quote_ident_quotes_keywords_as_postgres(sw: Conn, pg: Conn) -> None:
    sql = "SELECT w, quote_ident(w), pg_catalog.quote_ident(w) FROM unnest(%s::text[]) AS w ORDER BY w"
    assert both(sw, pg, sql, [list(WORDS)])
    for word in WORDS:
        assert both(sw, pg, "SELECT quote_ident(%s)", [word])


def test_format_quotes_identifiers_as_postgres(sw: Conn, pg: Conn) -> None:
    """format('%I', …), format('%I.%I', …) and `%%` around them (`%` doubled here for psycopg's placeholders)."""
    sql = (
        "SELECT format('%%I', w), pg_catalog.format('%%I.%%I', 'public', w), format('%%%%I %%I %%s', w, 'x') "
        "FROM unnest(%s::text[]) AS w ORDER BY w"
    )
    assert both(sw, pg, sql, [list(WORDS)])


def test_regclass_prints_quoted_names(sw: Conn, pg: Conn) -> None:
    schema, table = unique("kw"), "select"
    for conn in (sw, pg):
        conn.execute(f"CREATE SCHEMA {schema}")
        conn.execute(f'CREATE TABLE {schema}."{table}" (a int)')
        conn.execute(f'CREATE TABLE {schema}."Mixed" (a int)')
    sql = (
        "SELECT c.oid::regclass::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
        "ON n.oid = c.relnamespace WHERE n.nspname = %s ORDER BY c.relname"
    )
    assert both(sw, pg, sql, [schema]) == [(f'{schema}."Mixed"',), (f'{schema}."select"',)]


@pytest.mark.parametrize("method", ["btree", "hash", "gist", "gin", "spgist", "brin"])
def test_opclasses_and_opfamilies_are_postgres_rows(sw: Conn, pg: Conn, method: str) -> None:
    """Everything but the owner, which is each server's bootstrap owner."""
    sql = (
        "SELECT c.oid, c.opcmethod, c.opcname, c.opcnamespace, c.opcfamily, c.opcintype, c.opcdefault, c.opckeytype, "
        "f.opfname, f.opfmethod, f.opfnamespace FROM pg_catalog.pg_opclass c "
        "JOIN pg_catalog.pg_opfamily f ON f.oid = c.opcfamily JOIN pg_catalog.pg_am a ON a.oid = c.opcmethod "
        "WHERE a.amname = %s ORDER BY c.oid"
    )
    assert both(sw, pg, sql, [method])
    sql = (
        "SELECT f.oid, f.opfmethod, f.opfname, f.opfnamespace FROM pg_catalog.pg_opfamily f "
        "JOIN pg_catalog.pg_am a ON a.oid = f.opfmethod WHERE a.amname = %s ORDER BY f.oid"
    )
    assert both(sw, pg, sql, [method])
    owners = rows(sw, "SELECT DISTINCT opcowner FROM pg_opclass UNION SELECT DISTINCT opfowner FROM pg_opfamily")
    assert owners == [(BUILTIN_OWNER_OID,)]


def test_default_btree_opclasses(sw: Conn, pg: Conn) -> None:
    sql = (
        "SELECT t.typname, c.opcname, c.oid FROM pg_catalog.pg_opclass c JOIN pg_catalog.pg_type t "
        f"ON t.oid = c.opcintype WHERE c.opcmethod = 403 AND c.opcdefault AND t.oid IN ({OID_LIST}) ORDER BY c.oid"
    )
    found = dict((name, oid) for name, _, oid in both(sw, pg, sql))
    assert (found["int4"], found["text"]) == (1978, 3126)


def test_user_index_indclass_names_default_opclasses(sw: Conn, pg: Conn) -> None:
    """indclass[k] of a user index: the default btree operator class of each key column's type, joined as
    DBeaver and `\\d` join it."""
    schema = unique("kwidx")
    columns = "a integer, b text, c varchar(10), d numeric(10,2), e timestamp with time zone, f text[], g boolean"
    for conn in (sw, pg):
        conn.execute(f"CREATE SCHEMA {schema}")
        conn.execute(f"CREATE TABLE {schema}.t ({columns}, h bigint NOT NULL, PRIMARY KEY (h))")
        conn.execute(f"CREATE INDEX t_keys ON {schema}.t (a, b, c, d, e, f, g)")
    sql = (
        "SELECT ci.relname, o.opcname, o.oid, a.amname FROM pg_catalog.pg_index i "
        "JOIN pg_catalog.pg_class ci ON ci.oid = i.indexrelid "
        "JOIN pg_catalog.pg_namespace n ON n.oid = ci.relnamespace "
        "JOIN pg_catalog.pg_opclass o ON o.oid = i.indclass[{k}] "
        "JOIN pg_catalog.pg_am a ON a.oid = o.opcmethod "
        "WHERE n.nspname = %s ORDER BY ci.relname"
    )
    found = [both(sw, pg, sql.format(k=k), [schema]) for k in range(7)]
    assert [row[1] for row in found[0]] == ["int4_ops", "int8_ops"]
    assert [rows_k[0][1] for rows_k in found] == [
        "int4_ops",
        "text_ops",
        "text_ops",
        "numeric_ops",
        "timestamptz_ops",
        "array_ops",
        "bool_ops",
    ]


PSQL = shutil.which("psql")


def psql(port: int, user: str, db: str, command: str, options: str = "") -> str:
    assert PSQL is not None
    result = subprocess.run(
        [PSQL, "-X", "-h", "127.0.0.1", "-p", str(port), "-U", user, "-d", db, "-c", command],
        capture_output=True,
        text=True,
        timeout=60,
        # PGOPTIONS: sparkwire greets each session (welcome_message); the PostgreSQL oracle has no such setting
        env={"PATH": "/usr/bin:/bin", "PGCONNECT_TIMEOUT": "10", "LC_ALL": "C.UTF-8", "PGOPTIONS": options},
    )
    assert result.returncode == 0 and not result.stderr, result.stderr
    return result.stdout


@pytest.mark.skipif(PSQL is None, reason="psql not installed (apt-get install postgresql-client-15)")
@pytest.mark.parametrize("command", ["\\dAc btree int4", "\\dAc hash text", "\\dAf hash text", "\\dAf btree bigint"])
def test_psql_lists_operator_classes_and_families(
    server: SparkwireServer, oracle: PostgresOracle, command: str
) -> None:
    ours = psql(server.port, "materialize", "materialize", command, options="-c welcome_message=off")
    theirs = psql(oracle.port, "postgres", "postgres", command)
    assert ours == theirs
