"""``paddle.dataset.mq2007`` (``pe fluid`` maps that name here: a module name of pe never ends in a
digit): LETOR 4.0's MQ2007 learning-to-rank queries, read from the extracted archive in
``<data home>/MQ2007`` (``MQ2007/MQ2007/Fold1/train.txt``; pe downloads nothing and unpacks no .rar).
Each line is a document of a query (relevance, ``qid:N``, 46 features ``k:v``); ``train`` and ``test``
read Fold1 as ``format`` says: "pairwise" (label [1], better document, worse one), "pointwise"
(relevance, features), "listwise" (relevances, features of a query) or "plain_txt"; queries whose
documents are all irrelevant are left out."""

from __future__ import print_function  # noqa: F401 -- Paddle's module has it

import functools
import os
import sys

import numpy as np  # noqa: F401

from .common import cached_file, download  # noqa: F401

URL = "http://www.bigdatalab.ac.cn/benchmark/upload/download_source/7b6dbbe2-842c-11e4-a536-bcaec51b9163_MQ2007.rar"
MD5 = "7be1640ae95c6408dab0ae7207bdc706"


class Query:
    """One document of a query: relevance score, query id, features, the line's comment."""

    def __init__(self, query_id=-1, relevance_score=-1, feature_vector=None, description=""):
        self.query_id, self.relevance_score = query_id, relevance_score
        self.feature_vector = [] if feature_vector is None else feature_vector
        self.description = description

    def __str__(self):
        return f"{self.relevance_score} {self.query_id} {' '.join(str(f) for f in self.feature_vector)}"

    def _parse_(self, text):
        """Fills it from a line of the file; None for a line without 48 fields."""
        line, _, self.description = text.partition("#")
        parts, self.description = line.split(), self.description.strip()
        if len(parts) != 48:
            sys.stdout.write(f"expect 48 space split parts, get {len(parts)}")
            return None
        self.relevance_score, self.query_id = int(parts[0]), int(parts[1].split(":")[1])
        self.feature_vector.extend(float(p.split(":")[1]) for p in parts[2:])
        return self


class QueryList:
    """The documents of one query."""

    def __init__(self, querylist=None):
        self.query_id, self.querylist = -1, []
        for query in querylist or []:
            self._add_query(query)

    def __iter__(self):
        return iter(self.querylist)

    def __len__(self):
        return len(self.querylist)

    def __getitem__(self, i):
        return self.querylist[i]

    def _correct_ranking_(self):
        self.querylist.sort(key=lambda x: x.relevance_score, reverse=True)

    def _add_query(self, query):
        if self.query_id == -1:
            self.query_id = query.query_id
        elif self.query_id != query.query_id:
            raise ValueError("query in list must be same query_id")
        self.querylist.append(query)


def _ranked(querylist):
    querylist = querylist if isinstance(querylist, QueryList) else QueryList(querylist)
    querylist._correct_ranking_()
    return querylist


def gen_plain_txt(querylist):
    querylist = _ranked(querylist)
    for query in querylist:
        yield querylist.query_id, query.relevance_score, np.array(query.feature_vector)


def gen_point(querylist):
    for query in _ranked(querylist):
        yield query.relevance_score, np.array(query.feature_vector)


def gen_pair(querylist, partial_order="full"):
    """(label [1], the more relevant document's features, the other's) for each pair of documents
    of different relevance."""
    querylist = _ranked(querylist)
    for i, left in enumerate(querylist):
        for right in querylist.querylist[i + 1 :]:
            if left.relevance_score != right.relevance_score:
                better, worse = (left, right) if left.relevance_score > right.relevance_score else (right, left)
                yield np.array([1]), np.array(better.feature_vector), np.array(worse.feature_vector)


def gen_list(querylist):
    querylist = _ranked(querylist)
    yield np.array([[q.relevance_score] for q in querylist]), np.array([q.feature_vector for q in querylist])


def query_filter(querylists):
    """The queries with at least one relevant document."""
    return [ql for ql in querylists if sum(q.relevance_score for q in ql) != 0.0]


def load_from_text(filepath, shuffle=False, fill_missing=-1):
    """The QueryLists of the file ``filepath`` (relative to the dataset folder), in file order."""
    querylists = []
    with open(cached_file("mq2007", "MQ2007", filepath, URL)) as f:
        for line in f:
            query = Query()._parse_(line)
            if query is None:
                continue
            if not querylists or querylists[-1].query_id != query.query_id:
                querylists.append(QueryList())
            querylists[-1]._add_query(query)
    return querylists


_FORMATS = {"plain_txt": gen_plain_txt, "pointwise": gen_point, "listwise": gen_list}


def __reader__(filepath, format="pairwise", shuffle=False, fill_missing=-1):  # noqa: A002 -- Paddle's names
    for querylist in query_filter(load_from_text(filepath, shuffle=shuffle, fill_missing=fill_missing)):
        if format == "pairwise":
            yield from gen_pair(querylist)
        elif format in _FORMATS:
            yield next(_FORMATS[format](querylist))


train = functools.partial(__reader__, filepath="MQ2007/MQ2007/Fold1/train.txt")
test = functools.partial(__reader__, filepath="MQ2007/MQ2007/Fold1/test.txt")


def fetch():
    """The archive's path in the dataset folder (pe downloads nothing: absent, it says where to put it)."""
    return download(URL, "MQ2007", MD5)
