"""What Atlas learns after an answer: its cited sources watched for a change, solved threads kept as knowledge."""
