print("authdeck")
