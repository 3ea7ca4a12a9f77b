# after: PaddlePaddle/Paddle python/paddle/reader/tests/decorator_test.py @ 4f68fc975f84c7ae902b04f4b41ec4c045389c4b
# Re-written for pe (same decorators, same facts asserted), run with `pe fluid`.
import paddle
import paddle.reader


def reader_creator_10(dur=0):
    def reader():
        for i in range(10):
            yield i

    return reader


assert list(paddle.reader.map_readers(lambda x, y: x + y, reader_creator_10(), reader_creator_10())()) == [
    2 * i for i in range(10)
]
assert sorted(paddle.reader.shuffle(reader_creator_10(), 10)()) == list(range(10))
assert list(paddle.reader.buffered(reader_creator_10(), 2)()) == list(range(10))
assert list(paddle.reader.chain(reader_creator_10(), reader_creator_10())()) == list(range(10)) * 2
assert list(paddle.reader.firstn(reader_creator_10(), 3)()) == [0, 1, 2]
assert list(paddle.reader.compose(reader_creator_10(), reader_creator_10())()) == [(i, i) for i in range(10)]
try:
    list(paddle.reader.compose(reader_creator_10(), paddle.reader.firstn(reader_creator_10(), 5))())
    raise AssertionError("compose of unaligned readers did not raise")
except paddle.reader.ComposeNotAligned:
    pass
assert list(paddle.reader.xmap_readers(lambda x: x * 2, reader_creator_10(), 4, 3, order=True)()) == [
    2 * i for i in range(10)
]
assert [len(b) for b in paddle.batch(reader_creator_10(), 4)()] == [4, 4, 2]
assert [len(b) for b in paddle.batch(reader_creator_10(), 4, drop_last=True)()] == [4, 4]
print("ok")
