"""The seat link's refusal texts say what the hub and the seat do now."""

from paizhuo_shared import link


def test_the_bad_tag_refusal_says_what_happens_now():
    """A bad tag no longer resets anything (the frame is dropped, a live session stands): the text
    must not promise a reconnect, and must tell a board that keeps getting it to call a referee."""
    e = link.LinkError("bad_tag")
    assert "reconnect" not in e.en and "重新连接" not in e.zh
    assert "ignored" in e.en and "referee" in e.en and "已忽略" in e.zh and "裁判" in e.zh
