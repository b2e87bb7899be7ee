#!/usr/bin/env python3
"""Drives Ordo's SQS endpoint with boto3 (Debian's; the query protocol) and checks what SQS promises.

Usage: boto3_check.py ENDPOINT_URL [ACCESS_KEY_ID SECRET]

Prints one line "ok <check>" per check passed and exits 0, or prints what failed and exits 1.
boto3 does not verify SQS's MD5 digests itself, so this script does, with its own implementation of
SQS's documented algorithm (MD5 of the body; MD5 of the attributes' length-prefixed encoding).
distribution: Boto3SqsTest runs it against a real server.
"""
import base64
import hashlib
import struct
import sys
import time

import boto3
import botocore.exceptions


def md5_of_attributes(attributes):
    """SQS's MD5OfMessageAttributes: per attribute in name order, length-prefixed name, type, a transport byte, value."""
    out = b""
    for name in sorted(attributes):
        value = attributes[name]
        data_type = value["DataType"]
        out += struct.pack(">I", len(name.encode())) + name.encode()
        out += struct.pack(">I", len(data_type.encode())) + data_type.encode()
        if data_type.startswith("Binary"):
            raw = value["BinaryValue"]
            out += b"\x02" + struct.pack(">I", len(raw)) + raw
        else:
            raw = value["StringValue"].encode()
            out += b"\x01" + struct.pack(">I", len(raw)) + raw
    return hashlib.md5(out).hexdigest()


def code_of(call):
    try:
        call()
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"]
    return None


def check(condition, what):
    if not condition:
        print("FAILED " + what, flush=True)
        sys.exit(1)
    print("ok " + what, flush=True)


def receive_all(sqs, url, want, seconds=30):
    """Receives until want messages came or seconds passed; returns them (ApproximateReceiveCount asked for)."""
    got = []
    deadline = time.monotonic() + seconds
    while len(got) < want and time.monotonic() < deadline:
        got += sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=2,
                                   AttributeNames=["All"]).get("Messages", [])
    return got


def fifo(sqs):
    """A FIFO queue: a group's messages one at a time in the order sent, a message made visible again
    first, deduplication by ID and by content, and SQS's FIFO errors."""
    url = sqs.create_queue(QueueName="py-orders.fifo", Attributes={
        "FifoQueue": "true", "ContentBasedDeduplication": "true", "VisibilityTimeout": "30"})["QueueUrl"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    check(attributes["FifoQueue"] == "true" and attributes["ContentBasedDeduplication"] == "true",
          "a .fifo queue with content-based deduplication")
    check(code_of(lambda: sqs.send_message(QueueUrl=url, MessageBody="no group")) == "MissingParameter",
          "a FIFO message without MessageGroupId is refused")
    check(code_of(lambda: sqs.send_message(QueueUrl=url, MessageBody="late", MessageGroupId="a",
                                           DelaySeconds=5)) == "InvalidParameterValue",
          "a FIFO message's own DelaySeconds is refused")
    sent = {}
    for body in ("a1", "a2", "a3"):
        sent[body] = sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId="a",
                                      MessageDeduplicationId="id-" + body)
    sent["b1"] = sqs.send_message(QueueUrl=url, MessageBody="b1", MessageGroupId="b")
    check(all(s["SequenceNumber"].isdigit() for s in sent.values())
          and int(sent["a1"]["SequenceNumber"]) < int(sent["a2"]["SequenceNumber"]) < int(sent["a3"]["SequenceNumber"]),
          "each send has a SequenceNumber, growing within the group")
    again = sqs.send_message(QueueUrl=url, MessageBody="a1, sent twice", MessageGroupId="a",
                             MessageDeduplicationId="id-a1")
    check(again["MessageId"] == sent["a1"]["MessageId"], "a duplicate MessageDeduplicationId answers the first MessageId")
    same = sqs.send_message(QueueUrl=url, MessageBody="b1", MessageGroupId="b")
    check(same["MessageId"] == sent["b1"]["MessageId"], "the same body is a duplicate by content")

    heads = receive_all(sqs, url, 2)
    check(sorted(m["Body"] for m in heads) == ["a1", "b1"],
          "each group's first message is received, one a group: %s" % [m["Body"] for m in heads])
    a1 = next(m for m in heads if m["Body"] == "a1")
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=a1["ReceiptHandle"], VisibilityTimeout=0)
    retried = receive_all(sqs, url, 1)
    check([m["Body"] for m in retried] == ["a1"] and retried[0]["Attributes"]["ApproximateReceiveCount"] == "2",
          "a message made visible again is received before the next of its group")
    order = []
    head = retried[0]
    while True:
        sqs.delete_message(QueueUrl=url, ReceiptHandle=head["ReceiptHandle"])
        got = [m for m in receive_all(sqs, url, 1, seconds=5) if m["Attributes"]["MessageGroupId"] == "a"]
        if not got:
            break
        head = got[0]
        order.append(head["Body"])
    check(order == ["a2", "a3"], "a deletion lets the group's next message go, in the order sent: %s" % order)
    b1 = next(m for m in heads if m["Body"] == "b1")
    sqs.delete_message(QueueUrl=url, ReceiptHandle=b1["ReceiptHandle"])
    check(not sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1).get("Messages", []),
          "the duplicates were never enqueued")
    sqs.delete_queue(QueueUrl=url)


def main():
    endpoint = sys.argv[1]
    key, secret = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else ("any", "any")
    sqs = boto3.client("sqs", endpoint_url=endpoint, region_name="us-east-1",
                       aws_access_key_id=key, aws_secret_access_key=secret)

    url = sqs.create_queue(QueueName="py-jobs", Attributes={"VisibilityTimeout": "30"},
                           tags={"team": "py"})["QueueUrl"]
    check(url.endswith("/sqs/py-jobs"), "create_queue answers the queue URL")
    check(sqs.get_queue_url(QueueName="py-jobs")["QueueUrl"] == url, "get_queue_url")
    check(url in sqs.list_queues(QueueNamePrefix="py-").get("QueueUrls", []), "list_queues")
    check(sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "py"}, "tags given at creation")
    sqs.tag_queue(QueueUrl=url, Tags={"env": "ci"})
    sqs.untag_queue(QueueUrl=url, TagKeys=["team"])
    check(sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"env": "ci"}, "tag_queue and untag_queue")

    body = "héllo <ordo> & \r\n sqs"
    attributes = {
        "kind": {"DataType": "String", "StringValue": "report"},
        "size": {"DataType": "Number", "StringValue": "42"},
        "blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01\xff"},
    }
    sent = sqs.send_message(QueueUrl=url, MessageBody=body, MessageAttributes=attributes)
    check(sent["MD5OfMessageBody"] == hashlib.md5(body.encode()).hexdigest(), "MD5OfMessageBody of the send")
    check(sent["MD5OfMessageAttributes"] == md5_of_attributes(attributes), "MD5OfMessageAttributes of the send")

    got = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5, MessageAttributeNames=["All"],
                              AttributeNames=["All"]).get("Messages", [])
    check(len(got) == 1, "receive_message long-polls until the message is there")
    m = got[0]
    check(m["Body"] == body, "the body comes back exactly (CR, entities, non-ASCII)")
    check(m["MD5OfBody"] == hashlib.md5(m["Body"].encode()).hexdigest(), "MD5OfBody of the receive")
    check(m["MessageAttributes"] == attributes, "the message attributes come back")
    check(m["MD5OfMessageAttributes"] == md5_of_attributes(m["MessageAttributes"]),
          "MD5OfMessageAttributes of the receive")
    check(m["Attributes"]["ApproximateReceiveCount"] == "1", "ApproximateReceiveCount")
    check(abs(int(m["Attributes"]["SentTimestamp"]) - time.time() * 1000) < 60000, "SentTimestamp")

    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=0)
    again = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5, AttributeNames=["ApproximateReceiveCount"])["Messages"]
    check(again[0]["MessageId"] == m["MessageId"] and again[0]["Attributes"]["ApproximateReceiveCount"] == "2",
          "visible again at once after change_message_visibility 0, received a second time")
    check(code_of(lambda: sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"],
                                                        VisibilityTimeout=10))
          == "AWS.SimpleQueueService.MessageNotInflight", "the first receipt handle is stale")
    check(code_of(lambda: sqs.delete_message(QueueUrl=url, ReceiptHandle="not-a-handle")) == "ReceiptHandleIsInvalid",
          "a receipt handle never issued is refused")
    sqs.delete_message(QueueUrl=url, ReceiptHandle=again[0]["ReceiptHandle"])

    t0 = time.monotonic()
    empty = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=2).get("Messages", [])
    waited = time.monotonic() - t0
    check(not empty and waited >= 1.8, "an empty queue is long-polled for WaitTimeSeconds (waited %.2f s)" % waited)

    entries = [{"Id": "m%d" % i, "MessageBody": "batch-%d" % i} for i in range(5)]
    entries.append({"Id": "bad", "MessageBody": "x",
                    "MessageAttributes": {"n": {"DataType": "Number", "StringValue": "many"}}})
    batch = sqs.send_message_batch(QueueUrl=url, Entries=entries)
    check(len(batch["Successful"]) == 5 and [f["Id"] for f in batch["Failed"]] == ["bad"]
          and batch["Failed"][0]["Code"] == "InvalidParameterValue", "send_message_batch: a bad entry fails alone")
    check(all(s["MD5OfMessageBody"] == hashlib.md5(("batch-" + s["Id"][1:]).encode()).hexdigest()
              for s in batch["Successful"]), "MD5OfMessageBody of each batch entry")
    deadline = time.monotonic() + 30
    counted = None
    while time.monotonic() < deadline:
        counted = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])
        if counted["Attributes"]["ApproximateNumberOfMessages"] == "5":
            break
        time.sleep(0.2)
    check(counted["Attributes"]["ApproximateNumberOfMessages"] == "5", "ApproximateNumberOfMessages from Ordo's counts")

    received = []
    while len(received) < 5 and time.monotonic() < deadline:
        received += sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=2).get("Messages", [])
    check(sorted(r["Body"] for r in received) == ["batch-%d" % i for i in range(5)], "every batch message received once")
    deletes = [{"Id": "d%d" % i, "ReceiptHandle": r["ReceiptHandle"]} for i, r in enumerate(received)]
    deletes.append({"Id": "garbled", "ReceiptHandle": "garbled"})
    deleted = sqs.delete_message_batch(QueueUrl=url, Entries=deletes)
    check(len(deleted["Successful"]) == 5 and deleted["Failed"][0]["Code"] == "ReceiptHandleIsInvalid",
          "delete_message_batch: a garbled handle fails alone")

    fifo(sqs)

    check(code_of(lambda: sqs.get_queue_url(QueueName="never-made")) == "AWS.SimpleQueueService.NonExistentQueue",
          "a queue that does not exist")
    check(code_of(lambda: sqs.receive_message(QueueUrl=url, WaitTimeSeconds=21)) == "InvalidParameterValue",
          "WaitTimeSeconds over 20 is refused")
    sqs.delete_queue(QueueUrl=url)
    check(code_of(lambda: sqs.send_message(QueueUrl=url, MessageBody="x")) == "AWS.SimpleQueueService.NonExistentQueue",
          "delete_queue")
    print("done", flush=True)


if __name__ == "__main__":
    main()
