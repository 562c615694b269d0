"""A workbench test's session (tests/serve): the token the test app is made with, its
origin, and a TestClient that has exchanged the token for the session cookie."""

TOKEN = "test-token"
ORIGIN = "http://testserver"


def session(app):
    from starlette.testclient import TestClient

    client = TestClient(app, base_url="http://testserver")
    res = client.get(f"/?token={TOKEN}", follow_redirects=False)
    assert res.status_code == 303 and "simkit_session" in res.headers["set-cookie"]
    client.headers.update({"origin": ORIGIN})
    return client
