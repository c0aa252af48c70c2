print("breakwater")
